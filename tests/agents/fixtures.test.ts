// The recorded agent sessions are what the replay tests feed the relay: every agent and scenario
// must be there, in the shape those tests read, and nothing committed may carry a credential or
// a path of the machine that recorded it.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AGENT_SPECS, NOTES_TEXT } from "./agents";
import {
  type AgentFixture,
  CREDENTIAL_HEADER,
  DROPPED_HEADERS,
  FIXTURE_IDS,
  fixturePath,
  PROTOCOLS,
  RECORDING_KEY,
  REDACTED,
  SCENARIOS,
  SECRET_PATTERNS,
  scrubRequest,
  VARIANTS,
} from "./fixture";

// A variant speaks its agent's protocol.
const protocolOf: Record<string, string> = Object.fromEntries(AGENT_SPECS.map((s) => [s.name, s.protocol]));
for (const v of VARIANTS) protocolOf[v.id] = protocolOf[v.agent]!;
// The path of a model call, per protocol; side requests (model lists, token counts) may come too.
const MODEL_CALL: Record<string, RegExp> = {
  anthropic: /^\/v1\/messages(\?|$)/,
  responses: /^\/v1\/responses(\?|$)/,
  gemini: /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)(\?|$)/,
  openai: /^\/v1\/chat\/completions(\?|$)/,
};

describe("recorded agent sessions", () => {
  for (const agent of FIXTURE_IDS) {
    for (const scenario of SCENARIOS) {
      it(`${agent} ${scenario}: present, well-formed, free of secrets and local paths`, () => {
        const file = fixturePath(agent, scenario);
        expect(existsSync(file), `${file} is missing: run npm run record:agents`).toBe(true);
        const text = readFileSync(file, "utf8");
        const fixture = JSON.parse(text) as AgentFixture;

        expect(fixture.agent).toBe(agent);
        expect(fixture.scenario).toBe(scenario);
        expect(fixture.protocol).toBe(protocolOf[agent]);
        expect(PROTOCOLS).toContain(fixture.protocol);
        expect(fixture.version).toMatch(/^\d+\.\d+\.\d+/);
        expect(new Date(fixture.recordedAt).toISOString()).toBe(fixture.recordedAt);
        expect(Array.isArray(fixture.requests)).toBe(true);
        expect(fixture.requests.length).toBeGreaterThan(0);

        for (const req of fixture.requests) {
          expect(Object.keys(req).sort()).toEqual(["body", "headers", "method", "path"]);
          expect(req.method).toMatch(/^(GET|POST|PUT|DELETE|PATCH|HEAD)$/);
          expect(req.path.startsWith("/")).toBe(true);
          expect(typeof req.headers).toBe("object");
          for (const [name, value] of Object.entries(req.headers)) {
            expect(name).toBe(name.toLowerCase());
            expect(typeof value).toBe("string");
            expect(DROPPED_HEADERS.has(name), `header ${name} must be dropped`).toBe(false);
            expect(CREDENTIAL_HEADER.test(name), `header ${name} looks like a credential`).toBe(false);
          }
          expect(req.body === null || typeof req.body === "object" || typeof req.body === "string").toBe(true);
          if (req.method === "POST" && MODEL_CALL[fixture.protocol].test(req.path)) {
            expect(
              req.body !== null && typeof req.body === "object" && !Array.isArray(req.body),
              `${req.path} has a JSON object body`,
            ).toBe(true);
          }
        }
        const calls = fixture.requests.filter((r) => MODEL_CALL[fixture.protocol].test(r.path));
        expect(calls.length, "at least one model call").toBeGreaterThan(0);

        // The tool turn is only worth replaying if the tool really ran: its output comes back in a later call.
        const returned = calls.some((r) => JSON.stringify(r.body).includes(NOTES_TEXT.trim()));
        expect(returned).toBe(scenario === "tool");

        expect(text).not.toContain(RECORDING_KEY);
        for (const pattern of SECRET_PATTERNS) expect(text).not.toMatch(pattern);
        expect(text).not.toMatch(/qiao-record-[A-Za-z0-9]{6}/);
        expect(text).not.toMatch(/127\.0\.0\.1:(?!8787)\d+/);
      });
    }
  }
});

describe("scrubRequest", () => {
  it("drops credential and connection headers, redacts the key anywhere, and replaces local paths", () => {
    const scrubbed = scrubRequest(
      {
        method: "POST",
        path: "/v1/messages?beta=true",
        headers: {
          Authorization: `Bearer ${RECORDING_KEY}`,
          "x-api-key": RECORDING_KEY,
          "x-goog-api-key": RECORDING_KEY,
          "x-auth-token": "abc",
          host: "127.0.0.1:1234",
          "content-length": "10",
          "anthropic-beta": "context-management-2025-06-27",
          "x-echo": `key=${RECORDING_KEY}`,
        },
        body: JSON.stringify({
          system: `cwd is /tmp/qiao-record-abc123/project, memory in ~/.claude/projects/-tmp-qiao-record-abc123-project, key ${RECORDING_KEY}`,
          n: 1,
          tools: [],
        }),
      },
      [RECORDING_KEY],
      [
        ["/tmp/qiao-record-abc123", "/tmp/qiao-record"],
        ["/tmp/qiao-record-abc123/project", "/work/project"],
      ],
    );
    expect(scrubbed.headers).toEqual({ "anthropic-beta": "context-management-2025-06-27", "x-echo": `key=${REDACTED}` });
    expect(scrubbed.body).toEqual({
      system: `cwd is /work/project, memory in ~/.claude/projects/-work-project, key ${REDACTED}`,
      n: 1,
      tools: [],
    });
  });

  it("keeps a body-less request's body as null and a non-JSON body as text", () => {
    const get = scrubRequest({ method: "GET", path: "/v1/models", headers: {}, body: "" }, [], []);
    expect(get.body).toBeNull();
    const text = scrubRequest({ method: "POST", path: "/x", headers: {}, body: "not json" }, [], []);
    expect(text.body).toBe("not json");
  });
});
