// Upstream text an admin reads never carries a credential (issue 20, item 3): a host that quotes
// back the Google access token a Vertex AI channel sent it (`ya29.…`), or keys of any vendor, is
// shown masked in the channel test's answer, its log row, the auto-disable reason, the relay's
// error rows, and the model-list and balance errors. The credentials are real: the token is minted
// by the Google mock from the channel's service account and really sent to the echoing host.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import * as testOne from "@/app/api/channel/test/[id]/route";
import * as fetchForm from "@/app/api/channel/fetch_models/route";
import * as balanceOne from "@/app/api/channel/update_balance/[id]/route";
import * as logs from "@/app/api/log/route";
import { call, createUser } from "@/tests/helpers/api";
import { startGoogleMock, type GoogleMock } from "@/tests/mocks/gemini";
import { FOREIGN_SECRETS, startCredentialEcho, type CredentialEcho } from "@/tests/mocks/credential-echo";
import { clearRelayData, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";

const MODEL = "gemini-2.0-flash";
const OPENAI_KEY = "sk-channel-own-key-0001";

type Caller = { id: number; cookie: string };
let admin: Caller;
let google: GoogleMock;
let echo: CredentialEcho;
let relay: RelayServer;

beforeAll(async () => {
  admin = await createUser({ username: "secrets-admin", role: 10 });
  google = await startGoogleMock();
  echo = await startCredentialEcho();
  relay = await startRelay("node");
  await updateOption("ChannelPrivateAddressAllowed", "true");
  await updateOption("RetryTimes", "0");
  await updateOption("ModelRatio", JSON.stringify({ [MODEL]: 1, "gpt-4o-mini": 1 }));
});
afterAll(async () => {
  await relay.close();
  await echo.close();
  await google.close();
  await updateOption("AutomaticDisableChannelEnabled", "false");
});
beforeEach(async () => {
  google.reset();
  echo.reset();
  await clearRelayData();
  await updateOption("AutomaticDisableChannelEnabled", "false");
});

/** The Google access token the echo was sent (proves it really left), e.g. "ya29.mock-1". */
function sentGoogleToken(): string {
  const auth = echo.requests.at(-1)?.authorization ?? "";
  expect(auth).toMatch(/^Bearer ya29\.mock-\d+$/);
  return auth.slice("Bearer ".length);
}

/** Fails when `text` holds any credential the echo quoted. */
function expectNoSecrets(text: string, ...alsoSecret: string[]) {
  for (const secret of [...Object.values(FOREIGN_SECRETS), ...alsoSecret]) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/ya29\.[A-Za-z0-9_-]/);
}

const vertexChannel = (other = "us-central1") =>
  seedChannel({ type: 41, base_url: echo.url, models: MODEL, key: google.serviceAccount(), other });

const testChannel = (id: number) => call(testOne.GET, "GET", `/api/channel/test/${id}`, { as: admin, params: { id: String(id) } });

describe("a Vertex AI channel whose host quotes back its access token", () => {
  it("shows the admin the test's answer, its log row and the auto-disable reason masked", async () => {
    await updateOption("AutomaticDisableChannelEnabled", "true");
    const ch = await vertexChannel();
    const res = await testChannel(ch.id);
    const token = sentGoogleToken();
    expect(res.json.success).toBe(false);
    expect(res.json.message).toContain("Request had invalid authentication credentials: ya29.*** was refused by this host");
    expect(res.json.message).toContain("sk-***,");
    expect(res.json.message).toContain("AKIA***");
    expect(res.json.message).toContain("ASIA***");
    expectNoSecrets(res.json.message, token);

    const db = await getDb();
    const [row] = await db.log.findMany({ where: { channel_id: ch.id } });
    expect(row?.content).toContain("ya29.***");
    expectNoSecrets(row!.content, token);
    const channel = await db.channel.findUniqueOrThrow({ where: { id: ch.id } });
    expect(channel.status).toBe(3);
    expect(channel.other_info).toContain("ya29.***");
    expectNoSecrets(channel.other_info, token);
  });

  it("keeps the token out of the relay's error row, for the admin and for the user", async () => {
    const ch = await vertexChannel();
    const user = await seedUser();
    const client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    const error = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] }).then(
      () => null,
      (e: InstanceType<typeof OpenAI.APIError>) => e,
    );
    expect(error?.status).toBe(401);
    const token = sentGoogleToken();
    expectNoSecrets(error!.message, token);
    await settleAll();

    const listed = await call(logs.GET, "GET", "/api/log/?type=5", { as: admin });
    expect(listed.json.success, listed.json.message).toBe(true);
    const [row] = listed.json.data.items as Array<{ content: string; other: string; channel: number }>;
    expect(row?.channel).toBe(ch.id);
    // admin_info.error_message is written only when the user's text differs (it masks hosts too).
    expect(row?.content).toContain("ya29.***");
    expectNoSecrets(`${row!.content} ${row!.other}`, token);
  });

  it("masks a stored error row written before the relay masked every secret", async () => {
    const db = await getDb();
    const raw = `upstream said: Bearer ya29.a0AfB_old-token-1234 and ${FOREIGN_SECRETS.openai}`;
    await db.log.create({
      data: {
        user_id: admin.id,
        username: "secrets-admin",
        created_at: Math.floor(Date.now() / 1000),
        type: 5,
        content: raw,
        other: JSON.stringify({ admin_info: { use_channel: ["1"], error_message: `token ya29.a0AfB_old-token-1234 refused` } }),
      },
    });
    const listed = await call(logs.GET, "GET", "/api/log/?type=5", { as: admin });
    const [row] = listed.json.data.items as Array<{ content: string; other: string }>;
    expect(row?.content).toBe("upstream said: Bearer *** and sk-***");
    expect(JSON.parse(row!.other).admin_info.error_message).toBe("token ya29.*** refused");
  });
});

describe("the console's other upstream calls", () => {
  it("masks the model-list error of an upstream quoting keys", async () => {
    const res = await call(fetchForm.POST, "POST", "/api/channel/fetch_models", {
      as: admin,
      body: { type: 1, base_url: echo.url, key: OPENAI_KEY },
    });
    expect(res.status).toBe(502);
    expect(echo.requests[0]?.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(res.json.message).toContain("Request had invalid authentication credentials: *** was refused");
    expectNoSecrets(res.json.message, OPENAI_KEY);
  });

  it("masks the balance error of an upstream quoting keys", async () => {
    const ch = await seedChannel({ type: 1, base_url: echo.url, models: "gpt-4o-mini", key: OPENAI_KEY });
    const res = await call(balanceOne.GET, "GET", `/api/channel/update_balance/${ch.id}/`, { as: admin, params: { id: String(ch.id) } });
    expect(res.json.success).toBe(false);
    expect(echo.requests.length).toBeGreaterThan(0);
    expect(res.json.message).toContain("AKIA***");
    expectNoSecrets(res.json.message, OPENAI_KEY);
  });
});
