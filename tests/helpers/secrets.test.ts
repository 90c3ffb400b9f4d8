// The credential shapes the servers' output is checked for (secrets.ts): real ones are found,
// masked ones and ordinary log lines are not.
import { describe, expect, it } from "vitest";
import { generateTokenKey } from "@/lib/tokens/keys";
import { linesWithSecrets } from "@/tests/helpers/secrets";

describe("linesWithSecrets", () => {
  const key = `sk-${generateTokenKey()}`;

  it("finds a relay key, a bearer token, a session cookie and a key= query value", () => {
    const output = [
      `{"level":"info","msg":"relay call","path":"/v1/chat/completions"}`,
      `{"level":"error","err":{"message":"refused ${key}"}}`,
      `{"level":"warn","headers":{"authorization":"Bearer abcdefghijklmnop1234"}}`,
      `{"level":"info","cookie":"qiao_session=eyJhbGciOiJIUzI1NiJ9.payload"}`,
      `GET /v1beta/models/gemini:generateContent?key=AIzaSyA1234567890abcdef`,
    ].join("\n");
    expect(linesWithSecrets(output)).toHaveLength(4);
  });

  it("passes masked keys, redacted headers and the lines a server prints", () => {
    const output = [
      `{"level":"info","time":"2025-01-01T00:00:00.000Z","pid":1,"instance":"0123456789abcdef","role":"relay","component":"relay","requestId":"20250101000000123abcd1234","userId":1,"tokenId":2,"channelId":3,"model":"gpt-4o-mini","status":200,"ms":12,"stream":false,"path":"/v1/chat/completions","msg":"relay call"}`,
      `{"level":"error","err":{"message":"Incorrect API key provided: sk-***. Bearer ***"}}`,
      `{"level":"warn","headers":{"authorization":"[redacted]","x-api-key":"[redacted]"}}`,
      `无效的令牌 sk-0123****cdef (request id: 20250101000000123abcd1234)`,
      ` ✓ Compiled successfully in 40s`,
    ].join("\n");
    expect(linesWithSecrets(output)).toEqual([]);
  });
});
