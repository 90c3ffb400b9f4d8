// Prompt images for vendors that need their bytes (Gemini, Claude, Bedrock…): adapters call
// relayImage instead of fetchUserImage, so that a URL the guard refuses or cannot fetch is the
// request's own fault — a 400 `invalid_image_url` in the caller's error shape, never retried on
// another channel and never a 500.
import { fetchUserImage, type UserImage, UserUrlError } from "@/lib/net/fetch-url";
import { RelayError } from "@/lib/relay/errors";

export const INVALID_IMAGE_URL = "invalid_image_url";

/** The bytes of a prompt image (data: or http(s) URL, through the SSRF guard); a refusal is a local 400 RelayError. */
export async function relayImage(url: string): Promise<UserImage> {
  try {
    return await fetchUserImage(url);
  } catch (error) {
    if (error instanceof UserUrlError) throw new RelayError(400, error.message, { code: INVALID_IMAGE_URL });
    throw error;
  }
}
