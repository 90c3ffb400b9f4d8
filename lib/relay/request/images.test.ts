// relayImage: a prompt image the SSRF guard refuses, or that is no image, is the request's own
// 400 `invalid_image_url` (local: never retried on another channel), in the caller's error shape.
import { describe, expect, it } from "vitest";
import { FETCH_URL_MSG } from "@/lib/net/fetch-url";
import { RelayError } from "@/lib/relay/errors";
import { relayErrorResponse } from "@/lib/relay/http";
import { INVALID_IMAGE_URL, relayImage } from "@/lib/relay/request/images";

const PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

const refusal = async (url: string) => {
  const error = await relayImage(url).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, url).toBeInstanceOf(RelayError);
  return error as RelayError;
};

describe("relayImage", () => {
  it("returns a data: image's bytes", async () => {
    expect(await relayImage(`data:image/png;base64,${PNG_B64}`)).toEqual({ mediaType: "image/png", base64: PNG_B64 });
  });

  it("turns a refused address into a local 400 invalid_image_url with a message the user may read", async () => {
    for (const url of [
      "http://127.0.0.1:5552/cat.png",
      "http://2130706433:5552/cat.png",
      "http://[::ffff:127.0.0.1]:5552/",
      "http://169.254.169.254/",
    ]) {
      const error = await refusal(url);
      expect({ status: error.status, code: error.code, local: error.local, message: error.message }, url).toEqual({
        status: 400,
        code: INVALID_IMAGE_URL,
        local: true,
        message: `${FETCH_URL_MSG.fetchFailed}：${FETCH_URL_MSG.internalAddress}`,
      });
    }
  });

  it("does the same for a bad scheme, a non-image and malformed base64", async () => {
    expect((await refusal("file:///etc/passwd")).message).toBe(`${FETCH_URL_MSG.fetchFailed}：${FETCH_URL_MSG.badUrl}`);
    expect((await refusal("data:text/html;base64,PGI+aGk8L2I+")).message).toBe(FETCH_URL_MSG.notImage);
    expect((await refusal("data:image/png;base64,%%%")).message).toBe(FETCH_URL_MSG.badDataUrl);
  });

  it("answers as an OpenAI 400 error body", async () => {
    const answer = relayErrorResponse(await refusal("http://localhost:5552/a.png"), "req-1");
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body as string)).toEqual({
      error: {
        message: `${FETCH_URL_MSG.fetchFailed}：${FETCH_URL_MSG.internalAddress} (request id: req-1)`,
        type: "invalid_request_error",
        param: "messages",
        code: INVALID_IMAGE_URL,
      },
    });
  });
});
