import { describe, expect, it } from "vitest";
import { RelayError } from "../../errors";
import type { BuildRequestInput, UpstreamRequest } from "../types";
import { bedrock, bedrockModelId } from "./index";
import { signV4 } from "./sigv4";

function input(over: Partial<BuildRequestInput> = {}, key = "AKID|SECRET|us-west-2"): BuildRequestInput {
  const json = { model: "claude-3-5-sonnet-20241022", messages: [{ role: "user", content: "hi" }], user: "u1" };
  return {
    channel: {
      id: 7,
      type: 33,
      name: "aws",
      key,
      base_url: "",
      other: "",
      openai_organization: "",
      model_mapping: {},
      status_code_mapping: {},
      auto_ban: true,
    },
    mode: "chat",
    upstreamModel: "claude-3-5-sonnet-20241022",
    clientPath: "/v1/chat/completions",
    body: JSON.stringify(json),
    contentType: "application/json",
    stream: false,
    json,
    ...over,
  };
}

describe("Bedrock adapter", () => {
  it("maps model names and builds a signed invoke request with Bedrock's body", () => {
    expect(bedrockModelId("claude-3-haiku-20240307")).toBe("anthropic.claude-3-haiku-20240307-v1:0");
    expect(bedrockModelId("us.anthropic.claude-3-7-sonnet-20250219-v1:0")).toBe("us.anthropic.claude-3-7-sonnet-20250219-v1:0");
    const r = bedrock.buildRequest(input()) as UpstreamRequest;
    expect(r.url).toBe("https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke");
    expect(JSON.parse(r.body as string)).toEqual({
      anthropic_version: "bedrock-2023-05-31",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      max_tokens: 8192,
    });
    expect(r.framing).toBeUndefined();
    const auth = r.headers.Authorization!;
    expect(auth).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/us-west-2\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    // The signature is over exactly what is sent.
    const again = signV4(
      {
        method: "POST",
        url: new URL(r.url),
        headers: { "content-type": r.headers["content-type"]!, accept: r.headers.accept! },
        body: r.body,
        region: "us-west-2",
        service: "bedrock",
        date: new Date(r.headers["x-amz-date"]!.replace(/(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z/, "$1-$2-$3T$4:$5:$6Z")),
      },
      { accessKeyId: "AKID", secretAccessKey: "SECRET" },
    );
    expect(again.authorization).toBe(auth);
  });

  it("streams from invoke-with-response-stream through the event-stream framing", () => {
    const r = bedrock.buildRequest(input({ stream: true })) as UpstreamRequest;
    expect(r.url).toMatch(/\/invoke-with-response-stream$/);
    expect(r.framing).toBeDefined();
    expect(r.forcedIncludeUsage).toBe(true);
    expect(JSON.parse(r.body as string).stream).toBeUndefined();
  });

  it("refuses a malformed key as the channel's fault", () => {
    for (const key of ["AKID|SECRET", "AKID||us-east-1", "a|b|c|d", "AKID|SECRET|US EAST"]) {
      let err: unknown;
      try {
        bedrock.buildRequest(input({}, key));
      } catch (e) {
        err = e;
      }
      expect(err, key).toBeInstanceOf(RelayError);
      expect((err as RelayError).local).toBe(false);
      expect((err as RelayError).message).toContain("AccessKey|SecretAccessKey|Region");
    }
  });
});
