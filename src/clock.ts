/**
 * The current time in whole seconds. The API shows timestamps as Unix seconds and filters on
 * them exactly, so stored times carry no milliseconds: what a response shows is what a filter finds.
 */
export function now(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000);
}
