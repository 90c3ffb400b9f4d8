// What a caller-protocol decoder tells the pipeline beside the canonical body: what it could not
// convert (a refusal) and what it left out because the canonical request has no place for it (a
// dropped feature). Both matter only when the attempt's channel converts: a channel that speaks
// the caller's protocol gets the caller's own body, so nothing was refused or dropped for it.
import type { RelayError } from "@/lib/relay/errors";

export interface ConversionNotes {
  /**
   * The request is valid for the caller's vendor but converting it would make the answer wrong
   * (a `previous_response_id` with no stored response, a document by URL): answered as this error
   * when the attempt converts. The decoder leaves the thing out of the canonical body and goes on.
   */
  refuse(error: RelayError): void;
  /**
   * A feature the target cannot run and whose absence leaves the answer right (a built-in web
   * search, adaptive thinking, context management): left out, and named by `feature` (a short
   * token such as `web_search`) in the `x-qiao-dropped` response header and the log row.
   */
  drop(feature: string): void;
}

/** Notes for decoding outside a relay call (token counting, tests): a refusal is thrown at once. */
export const strictNotes: ConversionNotes = {
  refuse(error) {
    throw error;
  },
  drop() {},
};

/** The notes of one call: the first refusal and every dropped feature, once each, in order. */
export class CollectedNotes implements ConversionNotes {
  refusal: RelayError | null = null;
  readonly dropped: string[] = [];
  refuse(error: RelayError): void {
    this.refusal ??= error;
  }
  drop(feature: string): void {
    if (!this.dropped.includes(feature)) this.dropped.push(feature);
  }
}
