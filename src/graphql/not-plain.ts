/**
 * A refusal: PostgreSQL cannot write this operation's (or this rendering's) JSON as the executor
 * would, so it takes the executed road (answer-passthrough.ts). Thrown while the SQL is written, and
 * caught once per document (passthrough-shapes.ts).
 */
export class NotPlain extends Error {}
export const refuse = (why: string): never => {
  throw new NotPlain(why);
};
