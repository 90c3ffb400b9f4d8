// The API key format (`sk-` + 48 characters of [0-9A-Za-z], new-api's) and how it is stored: a
// SHA-256 for lookup, the sealed key so its owner can view it again, and a hint for display.
import { randomBytes } from "node:crypto";
import { seal, sha256Hex } from "@/lib/crypto/secret-box";

export const TOKEN_KEY_LENGTH = 48;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Bytes at or above this would bias the modulo; they are drawn again. */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

export function generateTokenKey(): string {
  let key = "";
  while (key.length < TOKEN_KEY_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < UNBIASED_LIMIT && key.length < TOKEN_KEY_LENGTH) key += ALPHABET[byte % ALPHABET.length];
    }
  }
  return key;
}

export const hashTokenKey = (key48: string) => sha256Hex(key48);

/** First and last four characters: enough to recognise a key, useless to use it. */
export const tokenKeyHint = (key48: string) => key48.slice(0, 4) + key48.slice(-4);

/** The columns that store a key (creating a token, importing one from new-api): hash, sealed copy, hint. */
export const storedTokenKey = (key48: string) => ({ key_hash: hashTokenKey(key48), key_enc: seal(key48), key_hint: tokenKeyHint(key48) });

export const maskTokenKey = (hint: string) => `sk-${hint.slice(0, 4)}**********${hint.slice(4)}`;

/** What a user pastes ("sk-…", "Bearer sk-…", or the bare key) → the bare key. */
export const normalizeTokenKey = (text: string) =>
  text
    .trim()
    .replace(/^Bearer\s+/i, "")
    .replace(/^sk-/, "");
