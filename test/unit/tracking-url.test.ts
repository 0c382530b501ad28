// A shipment's tracking URL is the carrier's URL followed by the tracking number (docs/decisions.md#records).
import fc from 'fast-check';
import { trackingUrlOf } from '../../src/domain/tracking-url.js';

it("is the carrier's URL with the number appended, and the bare number without a carrier URL", () => {
  expect(trackingUrlOf('https://track.example/?n=', 'TRK00000001')).toBe('https://track.example/?n=TRK00000001');
  expect(trackingUrlOf(null, 'TRK1')).toBe('TRK1');
  expect(trackingUrlOf(undefined, 'TRK1')).toBe('TRK1');
  fc.assert(
    fc.property(fc.webUrl(), fc.string({ minLength: 1, maxLength: 40 }), (url, number) => {
      const tracking = trackingUrlOf(url, number);
      expect(tracking.startsWith(url) && tracking.endsWith(number)).toBe(true);
      expect(tracking).toHaveLength(url.length + number.length);
    }),
  );
});
