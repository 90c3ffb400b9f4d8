// The redemption code format (new-api's: a UUID's 32 hex digits, no dashes) and how a code is
// stored: a SHA-256 for lookup, the sealed code so admins can view it again, and a hint for the
// masked display. 128 random bits: a hash is enough to find a code, and no guessing finds one.
import { randomBytes } from "node:crypto";
import { seal, sha256Hex } from "@/lib/crypto/secret-box";

export const REDEMPTION_KEY_LENGTH = 32;

export const generateRedemptionKey = () => randomBytes(REDEMPTION_KEY_LENGTH / 2).toString("hex");

export const hashRedemptionKey = (key: string) => sha256Hex(key);

/** First and last four characters: enough to recognise a code, useless to redeem it. */
export const redemptionKeyHint = (key: string) => key.slice(0, 4) + key.slice(-4);

/** The hint shown at the code's full length: abcd************************wxyz. */
export const maskRedemptionKey = (hint: string) => `${hint.slice(0, 4)}${"*".repeat(REDEMPTION_KEY_LENGTH - 8)}${hint.slice(4)}`;

/** The columns that store a code (creating one, importing one from new-api): hash, sealed copy, hint. */
export const storedRedemptionKey = (key: string) => ({
  key_hash: hashRedemptionKey(key),
  key_enc: seal(key),
  key_hint: redemptionKeyHint(key),
});
