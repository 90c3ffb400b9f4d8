// The relay's body cap (MAX_BODY_BYTES) through both entries: counted as the bytes arrive, so a
// chunked upload or a Content-Length that understates cannot get past it, and the 413 reaches the
// client in OpenAI's shape before anything is reserved, relayed or billed.
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "@/lib/relay/http";
import { relayWebRequest } from "@/lib/relay/doors/web";
import { startOpenAIMock, type OpenAIMock } from "@/tests/mocks/openai-upstream";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gpt-4o-mini";
const CHUNK = Buffer.alloc(1024 * 1024, 0x20); // spaces: the body stays valid JSON up to its end
const OVER = MAX_BODY_BYTES + 2 * CHUNK.length;
// Every relay error names its request id, this one too.
const tooLarge = {
  error: {
    message: expect.stringMatching(/^请求体过大（不能超过 64 MB） \(request id: \w+\)$/),
    type: "invalid_request_error",
    param: null,
    code: null,
  },
};

/** POSTs a chat request padded to `total` bytes; `length` is the Content-Length to declare, if any. */
function post(url: string, key: string, total: number, length?: number) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const head = `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}]`;
    const req = http.request(
      `${url}/v1/chat/completions`,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          ...(length === undefined ? {} : { "content-length": String(length) }),
        },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on("error", reject);
    let sent = head.length;
    req.write(head);
    const pump = () => {
      while (sent + CHUNK.length < total) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once("drain", pump);
      }
      req.end("}");
    };
    pump();
  });
}

for (const entry of ENTRIES) {
  describe(`relay body cap through the ${entry} entry`, () => {
    let upstream: OpenAIMock;
    let relay: RelayServer;

    beforeAll(async () => {
      upstream = await startOpenAIMock();
      relay = await startRelay(entry);
      await clearRelayData();
      await seedChannel({ base_url: upstream.url, models: MODEL });
    });
    afterAll(async () => {
      await relay.close();
      await upstream.close();
    });

    it("refuses a chunked body over the cap with an OpenAI-shaped 413, and nothing is relayed or billed", async () => {
      const user = await seedUser();
      const before = await user.quota();
      const res = await post(relay.url, user.key, OVER);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toEqual(tooLarge);
      await settleAll();
      expect(upstream.requests).toHaveLength(0);
      expect(await user.quota()).toBe(before);
      // A body under the cap still goes through.
      expect((await post(relay.url, user.key, 64 * 1024)).status).toBe(200);
    });

    it("refuses a declared Content-Length over the cap at once", async () => {
      upstream.reset();
      const user = await seedUser();
      // Declares more than it sends: the answer must not wait for bytes that never come.
      const socket = net.connect(relay.port, "127.0.0.1");
      const answer = new Promise<string>((resolve) => {
        let text = "";
        socket.on("data", (d) => {
          text += d;
          if (text.includes("\r\n\r\n") && text.includes("}}")) resolve(text);
        });
      });
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${user.key}\r\ncontent-type: application/json\r\ncontent-length: ${MAX_BODY_BYTES + 1}\r\n\r\n{"model":"${MODEL}"`,
      );
      const text = await answer;
      socket.destroy();
      expect(text.startsWith("HTTP/1.1 413")).toBe(true);
      expect(
        JSON.parse(
          text
            .slice(text.indexOf("\r\n\r\n") + 4)
            .replace(/^[0-9a-f]+\r\n/, "")
            .split("\r\n")[0]!,
        ),
      ).toEqual(tooLarge);
      expect(upstream.requests).toHaveLength(0);
    });
  });
}

describe("relay body cap of the route-handler entry, as any web host calls it", () => {
  it("counts the bytes it reads: a Content-Length that understates does not get a larger body in", async () => {
    const user = await seedUser(); // the key is checked before the body: a valid one reaches the count
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += CHUNK.length;
        if (pulled > 2 * MAX_BODY_BYTES) controller.close();
        else controller.enqueue(new Uint8Array(CHUNK));
      },
    });
    const request = new Request("http://127.0.0.1/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json", "content-length": "20" },
      body,
      duplex: "half",
    } as RequestInit);
    const res = await relayWebRequest(request);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual(tooLarge);
  });
});
