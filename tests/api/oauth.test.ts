// GitHub, LinuxDO and OIDC sign-in and binding against mock providers on loopback (tests/mocks/):
// the state (single-use, this browser only, 10 minutes), the code exchange, every refusal, a new
// account with the invitation rewards, binding to a standing session, unbinding and the admin's
// binding clear. The route handlers are called as Next calls them; the provider's redirects are
// followed with fetch, as a browser would.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubMock, startLinuxDoMock } from "@/tests/mocks/oauth2-provider";
import { startOidcMock } from "@/tests/mocks/oidc-provider";

// The provider base URLs are read once, when lib/env.ts loads: the mocks start first, and
// everything that loads lib/env.ts is imported after.
const github = await startGitHubMock();
const linuxdo = await startLinuxDoMock();
const idp = await startOidcMock();
process.env.GITHUB_OAUTH_BASE_URL = github.url;
process.env.GITHUB_API_BASE_URL = github.url;
process.env.LINUXDO_BASE_URL = linuxdo.url;

const { call, cookieFrom, createUser, sessionCookieFor } = await import("@/tests/helpers/api");
const { getDb } = await import("@/lib/db");
const { getDirectDb } = await import("@/lib/db/direct");
const { updateOption } = await import("@/lib/options");
const { OAUTH_MSG } = await import("@/lib/accounts/oauth/providers");
const { SIGN_IN_WAY_MSG } = await import("@/lib/accounts/sign-in-methods");
const { BINDING_MSG } = await import("@/lib/accounts/bindings");
const { BANNED_MESSAGE } = await import("@/lib/auth/authenticate");
const { SIGN_IN_MSG } = await import("@/lib/auth/sign-in");
const { USER_MSG } = await import("@/lib/users/manage-rules");
const stateRoute = await import("@/app/api/oauth/state/route");
const statusRoute = await import("@/app/api/status/route");
const optionRoute = await import("@/app/api/option/route");
const selfRoute = await import("@/app/api/user/self/route");
const unbindRoute = await import("@/app/api/user/self/bindings/[provider]/route");
const clearRoute = await import("@/app/api/user/[id]/bindings/[type]/route");
const discoveryRoute = await import("@/app/api/oauth/oidc/discovery/route");
const ROUTES = {
  github: { callback: await import("@/app/api/oauth/github/route"), authorize: await import("@/app/api/oauth/github/authorize/route") },
  linuxdo: { callback: await import("@/app/api/oauth/linuxdo/route"), authorize: await import("@/app/api/oauth/linuxdo/authorize/route") },
  oidc: { callback: await import("@/app/api/oauth/oidc/route"), authorize: await import("@/app/api/oauth/oidc/authorize/route") },
};
type Provider = keyof typeof ROUTES;

let seq = 0;
/** Every scenario from its own client address, so only the limit under test could bite. */
const freshIp = () => `198.51.${Math.floor(++seq / 250)}.${seq % 250}`;

/** A browser: its own flow cookie (set by the first state), maybe a session, one client address. */
class Browser {
  flow = "";
  readonly ip = freshIp();
  constructor(readonly session?: { id: number; cookie: string }) {}
  get cookie() {
    return [this.session?.cookie, this.flow && `qiao_flow=${this.flow}`].filter(Boolean).join("; ");
  }
  get userHeader() {
    return this.session ? String(this.session.id) : null;
  }
  keep(setCookie: string | null) {
    const flow = /qiao_flow=([^;]+)/.exec(setCookie ?? "")?.[1];
    if (flow) this.flow = flow;
  }
}

/** The provider's authorize page, followed: where it sends the browser back to (the console's callback page). */
async function visitProvider(location: string): Promise<URL> {
  const res = await fetch(location, { redirect: "manual" });
  expect(res.status, await res.clone().text()).toBe(302);
  return new URL(res.headers.get("location")!);
}

/** The console's authorize step and the provider's page: the callback URL the provider sends back. */
async function authorize(provider: Provider, browser: Browser, aff = ""): Promise<URL> {
  const res = await call(ROUTES[provider].authorize.GET, "GET", `/api/oauth/${provider}/authorize?aff=${aff}`, {
    cookie: browser.cookie,
    userHeader: browser.userHeader,
    ip: browser.ip,
  });
  expect(res.status).toBe(302);
  browser.keep(res.headers.get("set-cookie"));
  return visitProvider(res.headers.get("location")!);
}

/** The callback page's call with what the provider sent back. */
function callback(provider: Provider, back: URL, browser: Browser) {
  return call(ROUTES[provider].callback.GET, "GET", `/api/oauth/${provider}${back.search}`, {
    cookie: browser.cookie,
    userHeader: browser.userHeader,
    ip: browser.ip,
  });
}

const signInWith = async (provider: Provider, browser = new Browser(), aff = "") =>
  callback(provider, await authorize(provider, browser, aff), browser);

const userByColumn = async (column: "github_id" | "linux_do_id" | "oidc_id", value: string) =>
  (await getDb()).user.findMany({
    where: { [column]: value },
    select: { id: true, username: true, display_name: true, quota: true, inviter_id: true },
  });

const sessionsOf = async (userId: number) =>
  (await getDirectDb()).query("SELECT id, method FROM user_sessions WHERE user_id = ?", [userId]);

let root: { id: number; cookie: string };

beforeAll(async () => {
  const row = await (await getDb()).user.findUniqueOrThrow({ where: { username: "root" } });
  root = { id: row.id, cookie: await sessionCookieFor(row.id) };
  await updateOption("GitHubClientId", github.clientId);
  await updateOption("GitHubClientSecret", github.clientSecret);
  await updateOption("GitHubOAuthEnabled", "true");
  await updateOption("LinuxDOClientId", linuxdo.clientId);
  await updateOption("LinuxDOClientSecret", linuxdo.clientSecret);
  await updateOption("LinuxDOOAuthEnabled", "true");
  await updateOption("oidc.client_id", idp.clientId);
  await updateOption("oidc.client_secret", idp.clientSecret);
  await updateOption("oidc.well_known", idp.wellKnown);
  await updateOption("oidc.enabled", "true");
});

afterAll(async () => {
  await Promise.all([github.close(), linuxdo.close(), idp.close()]);
});

let accountSeq = 5000;
const nextGitHub = (name = "Octo Cat") => {
  const id = ++accountSeq;
  github.account = { id, login: `octo-${id}`, name };
  return github.account;
};

describe("the state", () => {
  it("GET /api/oauth/state gives a state bound to this browser that a GitHub callback takes once", async () => {
    const browser = new Browser();
    const issued = await call(stateRoute.GET, "GET", "/api/oauth/state?aff=", { ip: browser.ip });
    expect(issued.json).toMatchObject({ success: true, message: "" });
    expect(issued.json.data).toMatch(/^[A-Za-z0-9_-]{43}$/);
    browser.keep(issued.headers.get("set-cookie"));
    expect(browser.flow).not.toBe("");
    // A console built on new-api's call builds the authorize URL itself.
    const account = nextGitHub();
    const back = await visitProvider(
      `${github.url}/login/oauth/authorize?client_id=${github.clientId}&state=${issued.json.data}&redirect_uri=${encodeURIComponent("http://localhost:3000/oauth/github")}`,
    );
    const first = await callback("github", back, browser);
    expect(first.json).toMatchObject({ success: true, data: { display_name: account.name } });
    expect(first.headers.get("set-cookie")).toMatch(/^qiao_session=/);

    const again = await callback("github", back, browser);
    expect(again.status).toBe(403);
    expect(again.json).toEqual({ success: false, message: OAUTH_MSG.stateInvalid });
  });

  it("is refused when missing", async () => {
    const browser = new Browser();
    const back = await authorize("github", browser);
    back.searchParams.delete("state");
    const res = await callback("github", back, browser);
    expect(res.status).toBe(403);
    expect(res.json.message).toBe(OAUTH_MSG.stateInvalid);
  });

  it("is refused from another browser, and is spent by that attempt", async () => {
    const owner = new Browser();
    nextGitHub();
    const back = await authorize("github", owner);
    const thief = new Browser();
    thief.keep("qiao_flow=ThisIsAnotherBrowsersFlowCookie0123456789");
    expect((await callback("github", back, thief)).json).toEqual({ success: false, message: OAUTH_MSG.stateInvalid });
    expect((await callback("github", back, new Browser())).json.message).toBe(OAUTH_MSG.stateInvalid); // no cookie at all
    expect((await callback("github", back, owner)).json.message).toBe(OAUTH_MSG.stateInvalid);
  });

  it("is refused after its 10 minutes", async () => {
    const browser = new Browser();
    const account = nextGitHub();
    const back = await authorize("github", browser);
    await (await getDirectDb()).execute("UPDATE auth_flows SET expires_at = ? WHERE kind = 'oauth'", [Math.floor(Date.now() / 1000) - 1]);
    const res = await callback("github", back, browser);
    expect(res.status).toBe(403);
    expect(res.json.message).toBe(OAUTH_MSG.stateInvalid);
    expect(await userByColumn("github_id", String(account.id))).toEqual([]);
  });

  it("from /api/oauth/state cannot serve OIDC, whose authorize step keeps the PKCE verifier and nonce", async () => {
    const browser = new Browser();
    const issued = await call(stateRoute.GET, "GET", "/api/oauth/state", { ip: browser.ip });
    browser.keep(issued.headers.get("set-cookie"));
    const res = await callback("oidc", new URL(`http://localhost/oauth/oidc?code=x&state=${issued.json.data}`), browser);
    expect(res.json).toEqual({ success: false, message: OAUTH_MSG.stateInvalid });
  });
});

describe("GitHub sign-in", () => {
  it("signs up a new account: github_<random>, the provider's name, no password, the start quota", async () => {
    await updateOption("QuotaForNewUser", "700");
    try {
      const account = nextGitHub("Mona Lisa");
      const res = await signInWith("github");
      expect(res.json.success).toBe(true);
      const [user] = await userByColumn("github_id", String(account.id));
      expect(user).toMatchObject({ display_name: "Mona Lisa", quota: 700n });
      expect(user!.username).toMatch(/^github_[0-9a-f]{8}$/);
      expect(res.json.data).toMatchObject({ id: user!.id, username: user!.username, github_id: String(account.id) });
      const row = await (await getDb()).user.findUniqueOrThrow({ where: { id: user!.id }, select: { password: true } });
      expect(row.password).toBe("");
      expect(await sessionsOf(user!.id)).toEqual([expect.objectContaining({ method: "github" })]);
      // The redirect URI is the console's callback page under ServerAddress, the client in Basic auth.
      expect(github.tokenRequests.at(-1)).toEqual({ redirect_uri: "http://localhost:3000/oauth/github", auth: "basic" });
    } finally {
      await updateOption("QuotaForNewUser", "0");
    }
  });

  it("signs in the bound account again, and moves a binding new-api made by login to the numeric id", async () => {
    const account = nextGitHub();
    const first = await signInWith("github");
    const again = await signInWith("github");
    expect(again.json.data.id).toBe(first.json.data.id);

    const legacy = await createUser({ username: `legacy${++seq}` });
    const old = nextGitHub();
    await (await getDb()).user.update({ where: { id: legacy.id }, data: { github_id: old.login } });
    const res = await signInWith("github");
    expect(res.json.data.id).toBe(legacy.id);
    expect(await userByColumn("github_id", String(old.id))).toEqual([expect.objectContaining({ id: legacy.id })]);
    expect(account.id).not.toBe(old.id);
  });

  it("gives a new account's inviter and invitee their rewards (exact quota)", async () => {
    const db = await getDb();
    const inviter = await createUser({ username: `inviter${++seq}` });
    const code = `AF${seq}`;
    await db.user.update({ where: { id: inviter.id }, data: { aff_code: code } });
    const before = await db.user.findUniqueOrThrow({ where: { id: inviter.id } });
    await updateOption("QuotaForNewUser", "1000");
    await updateOption("QuotaForInvitee", "250");
    await updateOption("QuotaForInviter", "400");
    try {
      const account = nextGitHub();
      expect((await signInWith("github", new Browser(), code)).json.success).toBe(true);
      const [invitee] = await userByColumn("github_id", String(account.id));
      expect(invitee).toMatchObject({ quota: 1250n, inviter_id: inviter.id });
      const after = await db.user.findUniqueOrThrow({ where: { id: inviter.id } });
      expect(after.aff_count).toBe(before.aff_count + 1);
      expect(after.aff_quota - before.aff_quota).toBe(400n);
      expect(after.aff_history_quota - before.aff_history_quota).toBe(400n);
      expect(after.quota).toBe(before.quota);
    } finally {
      for (const key of ["QuotaForNewUser", "QuotaForInvitee", "QuotaForInviter"]) await updateOption(key, "0");
    }
  });

  it("makes no account while registration is off", async () => {
    await updateOption("RegisterEnabled", "false");
    try {
      const account = nextGitHub();
      const res = await signInWith("github");
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ success: false, message: "管理员关闭了新用户注册" });
      expect(await userByColumn("github_id", String(account.id))).toEqual([]);
    } finally {
      await updateOption("RegisterEnabled", "true");
    }
  });

  it("refuses a disabled account, with no session", async () => {
    const account = nextGitHub();
    const first = await signInWith("github");
    const id = first.json.data.id as number;
    await (await getDirectDb()).execute("DELETE FROM user_sessions WHERE user_id = ?", [id]);
    await (await getDb()).user.update({ where: { id }, data: { status: 2 } });
    const res = await signInWith("github");
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ success: false, message: BANNED_MESSAGE });
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await sessionsOf(id)).toEqual([]);
    expect(account.id).toBeGreaterThan(0);
  });

  it("refuses a deleted account's GitHub, which signs up no second account", async () => {
    const account = nextGitHub();
    const id = (await signInWith("github")).json.data.id as number;
    await (await getDb()).user.update({ where: { id }, data: { deleted_at: new Date() } });
    const res = await signInWith("github");
    expect(res.json).toEqual({ success: false, message: OAUTH_MSG.userDeleted });
    expect(await userByColumn("github_id", String(account.id))).toHaveLength(1);
  });

  it("asks for the second factor of an account that has one: the pending cookie, no session", async () => {
    const account = nextGitHub();
    const id = (await signInWith("github")).json.data.id as number;
    await (await getDirectDb()).execute("DELETE FROM user_sessions WHERE user_id = ?", [id]);
    await (await getDirectDb()).execute("INSERT INTO two_factors (user_id, secret_enc, enabled, created_at) VALUES (?, 'x', ?, 0)", [
      id,
      true,
    ]);
    const res = await signInWith("github");
    expect(res.json).toEqual({ success: true, message: SIGN_IN_MSG.needCode, data: { require_2fa: true } });
    expect(res.headers.get("set-cookie")).toMatch(/^qiao_2fa=/);
    expect(await sessionsOf(id)).toEqual([]);
    expect(account.id).toBeGreaterThan(0);
  });

  it("says so when the user declines at GitHub, and spends the state", async () => {
    const browser = new Browser();
    github.deny = true;
    const back = await authorize("github", browser);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect((await callback("github", back, browser)).json).toEqual({ success: false, message: OAUTH_MSG.cancelled });
    back.searchParams.delete("error");
    back.searchParams.set("code", "anything");
    expect((await callback("github", back, browser)).json.message).toBe(OAUTH_MSG.stateInvalid);
  });

  it("says GitHub refused a bad code", async () => {
    const browser = new Browser();
    const back = await authorize("github", browser);
    back.searchParams.set("code", "not-a-code");
    expect((await callback("github", back, browser)).json).toEqual({ success: false, message: OAUTH_MSG.tokenFailed("GitHub") });
  });

  it("is refused, and its authorize step leads to the callback page, while the switch is off", async () => {
    await updateOption("GitHubOAuthEnabled", "false");
    try {
      const res = await call(ROUTES.github.authorize.GET, "GET", "/api/oauth/github/authorize", { ip: freshIp() });
      expect(res.headers.get("location")).toBe("http://localhost:3000/oauth/github");
      const answer = await call(ROUTES.github.callback.GET, "GET", "/api/oauth/github", { ip: freshIp() });
      expect(answer.status).toBe(403);
      expect(answer.json.message).toBe(OAUTH_MSG.notEnabled("GitHub"));
      expect((await call(statusRoute.GET, "GET", "/api/status")).json.data.github_oauth).toBe(false);
    } finally {
      await updateOption("GitHubOAuthEnabled", "true");
    }
    expect((await call(statusRoute.GET, "GET", "/api/status")).json.data).toMatchObject({
      github_oauth: true,
      github_client_id: github.clientId,
    });
  });
});

describe("binding to a standing session", () => {
  it("binds GitHub to the signed-in account (message bind) and signs in to it afterwards", async () => {
    const u = await createUser({ username: `binder${++seq}` });
    const account = nextGitHub();
    const res = await signInWith("github", new Browser(u));
    expect(res.json).toEqual({ success: true, message: "bind", data: { action: "bind" } });
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await userByColumn("github_id", String(account.id))).toEqual([expect.objectContaining({ id: u.id })]);
    expect((await signInWith("github")).json.data.id).toBe(u.id);
  });

  it("refuses an id another account holds, and changes nothing", async () => {
    const owner = nextGitHub();
    const ownerId = (await signInWith("github")).json.data.id as number;
    const other = await createUser({ username: `second${++seq}` });
    github.account = owner;
    const res = await signInWith("github", new Browser(other));
    expect(res.json).toEqual({ success: false, message: OAUTH_MSG.alreadyBound("GitHub") });
    expect(await userByColumn("github_id", String(owner.id))).toEqual([expect.objectContaining({ id: ownerId })]);
    const row = await (await getDb()).user.findUniqueOrThrow({ where: { id: other.id } });
    expect(row.github_id).toBe("");
  });

  it("refuses a flow started by another signed-in user", async () => {
    const a = await createUser({ username: `starter${++seq}` });
    const b = await createUser({ username: `finisher${++seq}` });
    nextGitHub();
    const browser = new Browser(a);
    const back = await authorize("github", browser);
    const switched = Object.assign(new Browser(b), { flow: browser.flow });
    const res = await callback("github", back, switched);
    expect(res.status).toBe(403);
    expect(res.json.message).toBe(OAUTH_MSG.sessionChanged);
  });

  it("binds LinuxDO, the client authenticating with Basic", async () => {
    const u = await createUser({ username: `ldbind${++seq}` });
    linuxdo.account = { id: 777, login: "ld-user", name: "L D" };
    expect((await signInWith("linuxdo", new Browser(u))).json.message).toBe("bind");
    expect(linuxdo.tokenRequests.at(-1)).toEqual({ redirect_uri: "http://localhost:3000/oauth/linuxdo", auth: "basic" });
    expect(await userByColumn("linux_do_id", "777")).toEqual([expect.objectContaining({ id: u.id })]);
  });
});

describe("LinuxDO sign-in", () => {
  it("signs up linuxdo_<random> with the provider's name, and refuses a bad code", async () => {
    linuxdo.account = { id: 9001, login: "tux", name: "Tux Penguin" };
    const res = await signInWith("linuxdo");
    expect(res.json.success).toBe(true);
    const [user] = await userByColumn("linux_do_id", "9001");
    expect(user!.username).toMatch(/^linuxdo_[0-9a-f]{8}$/);
    expect(user!.display_name).toBe("Tux Penguin");

    const browser = new Browser();
    const back = await authorize("linuxdo", browser);
    back.searchParams.set("code", "nope");
    expect((await callback("linuxdo", back, browser)).json.message).toBe(OAUTH_MSG.tokenFailed("LinuxDO"));
  });
});

describe("OIDC sign-in", () => {
  let subSeq = 0;
  const nextSub = () => {
    idp.account = {
      sub: `sub-${++subSeq}-${Date.now()}`,
      name: `Person ${subSeq}`,
      preferred_username: `p${subSeq}`,
      email: `p${subSeq}@idp.example`,
    };
    return idp.account;
  };

  it("sends PKCE (S256) and a nonce, and signs up oidc_<random> from the checked id_token", async () => {
    const account = nextSub();
    const res = await signInWith("oidc");
    expect(res.json.success).toBe(true);
    const sent = idp.authorizeRequests.at(-1)!;
    expect(sent.get("code_challenge_method")).toBe("S256");
    expect(sent.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sent.get("nonce")).toBeTruthy();
    expect(sent.get("redirect_uri")).toBe("http://localhost:3000/oauth/oidc");
    const [user] = await userByColumn("oidc_id", account.sub);
    expect(user!.username).toMatch(/^oidc_[0-9a-f]{8}$/);
    expect(user!.display_name).toBe(account.name);
    expect(await sessionsOf(user!.id)).toEqual([expect.objectContaining({ method: "oidc" })]);
  });

  it.each([
    ["bad-signature", "signed by a key not in the provider's JWKS"],
    ["wrong-audience", "issued to another client"],
    ["wrong-nonce", "carrying another request's nonce"],
    ["expired", "expired"],
  ] as const)("refuses an id_token %s (%s): no account, no session", async (fault, _why) => {
    const account = nextSub();
    idp.fault = fault;
    const res = await signInWith("oidc");
    expect(res.json).toEqual({ success: false, message: OAUTH_MSG.idTokenInvalid("OIDC") });
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await userByColumn("oidc_id", account.sub)).toEqual([]);
  });

  it("refuses a code redeemed without the flow's PKCE verifier (a state from another authorize)", async () => {
    const browser = new Browser();
    const first = await authorize("oidc", browser);
    const second = await authorize("oidc", browser);
    // The code of the first request with the state (and so the verifier) of the second.
    second.searchParams.set("code", first.searchParams.get("code")!);
    expect((await callback("oidc", second, browser)).json.message).toBe(OAUTH_MSG.tokenFailed("OIDC"));
  });

  it("binds to a standing session and names the provider as the admin set it", async () => {
    await updateOption("oidc.display_name", "公司 SSO");
    try {
      const u = await createUser({ username: `oidcbind${++seq}` });
      const account = nextSub();
      expect((await signInWith("oidc", new Browser(u))).json.message).toBe("bind");
      expect(await userByColumn("oidc_id", account.sub)).toEqual([expect.objectContaining({ id: u.id })]);
      const other = await createUser({ username: `oidcother${++seq}` });
      expect((await signInWith("oidc", new Browser(other))).json.message).toBe(OAUTH_MSG.alreadyBound("公司 SSO"));
      expect((await call(statusRoute.GET, "GET", "/api/status")).json.data).toMatchObject({
        oidc_enabled: true,
        oidc_client_id: idp.clientId,
        oidc_display_name: "公司 SSO",
      });
    } finally {
      await updateOption("oidc.display_name", "");
    }
  });

  it("answers temporarily unavailable when the discovery document cannot be read, spending no state", async () => {
    await updateOption("oidc.well_known", "http://127.0.0.1:9/.well-known/openid-configuration");
    try {
      const res = await call(ROUTES.oidc.authorize.GET, "GET", "/api/oauth/oidc/authorize", { ip: freshIp() });
      expect(res.headers.get("location")).toBe("http://localhost:3000/oauth/oidc?error=temporarily_unavailable");
      expect(res.headers.get("set-cookie")).toBeNull();
      const answer = await call(ROUTES.oidc.callback.GET, "GET", "/api/oauth/oidc?error=temporarily_unavailable", { ip: freshIp() });
      expect(answer.json).toEqual({ success: false, message: OAUTH_MSG.connectFailed("OIDC") });
    } finally {
      await updateOption("oidc.well_known", idp.wellKnown);
    }
  });
});

describe("OIDC settings", () => {
  const put = (key: string, value: string) => call(optionRoute.PUT, "PUT", "/api/option/", { as: root, body: { key, value } });

  it("refuses oidc.enabled until client id, secret and well-known URL are set", async () => {
    await put("oidc.enabled", "false");
    await put("oidc.well_known", "");
    try {
      expect((await put("oidc.enabled", "true")).json).toEqual({
        success: false,
        message: "无法启用 OIDC 登录，请先填入 OIDC Client Id、Client Secret 以及 Well-Known URL！",
      });
    } finally {
      await put("oidc.well_known", idp.wellKnown);
      expect((await put("oidc.enabled", "true")).json.success).toBe(true);
    }
  });

  it("takes only https addresses, or http on this machine", async () => {
    const refused = await put("oidc.well_known", "http://idp.example.com/.well-known/openid-configuration");
    expect(refused.json).toEqual({ success: false, message: "oidc.well_known 必须是 https:// 地址（仅本机地址可以使用 http://）" });
    expect((await put("oidc.token_endpoint", "http://10.0.0.5/token")).json.success).toBe(false);
    expect((await put("oidc.token_endpoint", "https://idp.example.com/token")).json.success).toBe(true);
    await put("oidc.token_endpoint", "");
  });

  it("lists the client secret as set, never its value", async () => {
    const listed = (await call(optionRoute.GET, "GET", "/api/option/", { as: root })).json.data as Array<Record<string, unknown>>;
    expect(listed.find((o) => o.key === "oidc.client_secret")).toEqual({ key: "oidc.client_secret", value: "", secret: true, set: true });
    expect(JSON.stringify(listed)).not.toContain(idp.clientSecret);
  });

  it("reads the endpoints of a well-known document for root only", async () => {
    const path = `/api/oauth/oidc/discovery?well_known=${encodeURIComponent(idp.wellKnown)}`;
    expect((await call(discoveryRoute.GET, "GET", path, { as: root })).json.data).toEqual({
      issuer: idp.url,
      authorization_endpoint: `${idp.url}/authorize`,
      token_endpoint: `${idp.url}/token`,
      user_info_endpoint: `${idp.url}/userinfo`,
    });
    const u = await createUser({ username: `nodisc${++seq}` });
    expect((await call(discoveryRoute.GET, "GET", path, { as: u })).status).toBe(403);
  });
});

describe("unbinding", () => {
  const unbind = (as: { id: number; cookie: string }, provider: string) =>
    call(unbindRoute.DELETE, "DELETE", `/api/user/self/bindings/${provider}`, { as, params: { provider } });

  it("refuses to take away the last way to sign in, until a password is set without the old one", async () => {
    const account = nextGitHub();
    const browser = new Browser();
    const res = await signInWith("github", browser);
    const me = { id: res.json.data.id as number, cookie: cookieFrom(res.headers.get("set-cookie")) };
    expect((await unbind(me, "github")).json).toEqual({ success: false, message: SIGN_IN_WAY_MSG.lastWay });
    expect(await userByColumn("github_id", String(account.id))).toHaveLength(1);

    const set = await call(selfRoute.PUT, "PUT", "/api/user/self", { as: me, body: { password: "first-password1" } });
    expect(set.json.success).toBe(true);
    const renewed = { id: me.id, cookie: cookieFrom(set.headers.get("set-cookie")) };
    expect((await unbind(renewed, "github")).json).toEqual({ success: true, message: BINDING_MSG.unbound, data: null });
    expect(await userByColumn("github_id", String(account.id))).toEqual([]);
    expect((await unbind(renewed, "github")).json).toEqual({ success: false, message: BINDING_MSG.notBound });
  });

  it("lets an account with a password unbind e-mail and any provider; an unknown kind is refused", async () => {
    const u = await createUser({ username: `unb${++seq}` });
    await (await getDb()).user.update({ where: { id: u.id }, data: { email: `unb${seq}@example.com`, telegram_id: "tg-1" } });
    expect((await unbind(u, "email")).json.success).toBe(true);
    expect((await unbind(u, "Telegram")).json.success).toBe(true);
    expect((await unbind(u, "myspace")).json).toEqual({ success: false, message: BINDING_MSG.unknown });
    const row = await (await getDb()).user.findUniqueOrThrow({ where: { id: u.id } });
    expect([row.email, row.telegram_id]).toEqual(["", ""]);
  });

  it("a password change still needs the old password once there is one", async () => {
    const u = await createUser({ username: `pwd${++seq}`, password: "password123" });
    const res = await call(selfRoute.PUT, "PUT", "/api/user/self", { as: u, body: { password: "another-pass1" } });
    expect(res.json).toEqual({ success: false, message: "原密码错误" });
  });
});

describe("an admin clearing a user's binding", () => {
  const clear = (as: { id: number; cookie: string }, id: number, type: string) =>
    call(clearRoute.DELETE, "DELETE", `/api/user/${id}/bindings/${type}`, { as, params: { id: String(id), type } });

  it("clears it for a user below them, on the audit trail; never for an equal or higher one", async () => {
    const admin = await createUser({ username: `adm${++seq}`, role: 10 });
    const user = await createUser({ username: `victim${++seq}` });
    const peer = await createUser({ username: `peer${++seq}`, role: 10 });
    const db = await getDb();
    await db.user.update({ where: { id: user.id }, data: { github_id: "31337" } });
    await db.user.update({ where: { id: peer.id }, data: { github_id: "31338" } });

    expect((await clear(admin, user.id, "github")).json).toEqual({ success: true, message: BINDING_MSG.cleared, data: null });
    expect((await db.user.findUniqueOrThrow({ where: { id: user.id } })).github_id).toBe("");
    const [audit] = await (await getDirectDb()).query(
      "SELECT actor_id, action, target_type, target_id, detail FROM audit_logs WHERE action = 'user.binding_clear' AND target_id = ?",
      [String(user.id)],
    );
    expect(audit).toMatchObject({ action: "user.binding_clear", target_type: "user", target_id: String(user.id) });
    expect(Number(audit!.actor_id)).toBe(admin.id);
    expect(JSON.parse(String(audit!.detail))).toEqual({ binding: "github", username: user.username, from: "31337" });

    expect((await clear(admin, peer.id, "github")).json).toEqual({ success: false, message: USER_MSG.outranked });
    expect((await db.user.findUniqueOrThrow({ where: { id: peer.id } })).github_id).toBe("31338");
    expect((await clear(user, peer.id, "github")).status).toBe(403);
    expect((await clear(root, peer.id, "github")).json.success).toBe(true);
  });
});
