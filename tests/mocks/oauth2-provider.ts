// Mock GitHub and LinuxDO on 127.0.0.1, speaking their wire formats: an authorize page that sends
// the browser straight back with a code (or with `error=access_denied` when told to deny), a token
// endpoint that takes the code once (client credentials in HTTP Basic; GitHub also in the body),
// and the user endpoint behind the access token. GitHub answers a bad code with 200 and an `error`
// field, LinuxDO with 400, as the real ones do.
//
//   const github = await startGitHubMock();
//   github.account = { id: 42, login: "octo", name: "Octo Cat" };   // who the next authorize signs in as
//   // GITHUB_OAUTH_BASE_URL = GITHUB_API_BASE_URL = github.url
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export type MockAccount = { id: number; login: string; name: string };

export interface OAuth2Mock {
  url: string;
  clientId: string;
  clientSecret: string;
  /** The account the next authorize signs in as. */
  account: MockAccount;
  /** Answer the next authorize with `error=access_denied` (the user declined). */
  deny: boolean;
  /** What reached the token endpoint: the redirect_uri sent and how the client authenticated. */
  tokenRequests: Array<{ redirect_uri: string; auth: "basic" | "body" | "none" }>;
  close(): Promise<void>;
}

type Flavor = {
  authorizePath: string;
  tokenPath: string;
  userPath: string;
  userJson: (a: MockAccount) => Record<string, unknown>;
  /** How a refused code is answered. */
  badCode: { status: number; body: Record<string, unknown> };
  /** Whether the client id and secret may come in the form body instead of Basic. */
  bodyCredentials: boolean;
};

const GITHUB: Flavor = {
  authorizePath: "/login/oauth/authorize",
  tokenPath: "/login/oauth/access_token",
  userPath: "/user",
  userJson: (a) => ({ id: a.id, login: a.login, name: a.name, type: "User", site_admin: false }),
  badCode: { status: 200, body: { error: "bad_verification_code", error_description: "The code passed is incorrect or expired." } },
  bodyCredentials: true,
};

const LINUXDO: Flavor = {
  authorizePath: "/oauth2/authorize",
  tokenPath: "/oauth2/token",
  userPath: "/api/user",
  userJson: (a) => ({ id: a.id, username: a.login, name: a.name, active: true, trust_level: 2, silenced: false }),
  badCode: { status: 400, body: { error: "invalid_grant", error_description: "The provided authorization grant is invalid" } },
  bodyCredentials: false,
};

export const startGitHubMock = () => startOAuth2Mock(GITHUB, "Iv1.mock-github", "github-mock-secret");
export const startLinuxDoMock = () => startOAuth2Mock(LINUXDO, "linuxdo-mock-client", "linuxdo-mock-secret");

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => resolve(body));
  });
}

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function startOAuth2Mock(flavor: Flavor, clientId: string, clientSecret: string): Promise<OAuth2Mock> {
  const codes = new Map<string, { account: MockAccount; redirect_uri: string }>();
  const tokens = new Map<string, MockAccount>();
  const mock: OAuth2Mock = {
    url: "",
    clientId,
    clientSecret,
    account: { id: 1001, login: "mock-user", name: "Mock User" },
    deny: false,
    tokenRequests: [],
    close: async () => {},
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readBody(req);
    if (req.method === "GET" && url.pathname === flavor.authorizePath) {
      const redirect = url.searchParams.get("redirect_uri") ?? "";
      if (url.searchParams.get("client_id") !== clientId || !redirect) {
        res.writeHead(400, { "content-type": "text/plain" });
        return res.end("unknown client or no redirect_uri");
      }
      const back = new URL(redirect);
      const state = url.searchParams.get("state");
      if (state !== null) back.searchParams.set("state", state);
      if (mock.deny) {
        mock.deny = false;
        back.searchParams.set("error", "access_denied");
      } else {
        const code = randomBytes(12).toString("hex");
        codes.set(code, { account: { ...mock.account }, redirect_uri: redirect });
        back.searchParams.set("code", code);
      }
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (req.method === "POST" && url.pathname === flavor.tokenPath) {
      const form = new URLSearchParams(body);
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      const [id, secret] = basic ? Buffer.from(basic, "base64").toString().split(":") : [form.get("client_id"), form.get("client_secret")];
      const auth = basic ? "basic" : form.get("client_secret") ? "body" : "none";
      mock.tokenRequests.push({ redirect_uri: form.get("redirect_uri") ?? "", auth });
      if (id !== clientId || secret !== clientSecret || (auth === "body" && !flavor.bodyCredentials)) {
        return json(res, 401, { error: "invalid_client" });
      }
      const grant = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      if (!grant || form.get("grant_type") !== "authorization_code" || grant.redirect_uri !== form.get("redirect_uri")) {
        return json(res, flavor.badCode.status, flavor.badCode.body);
      }
      const token = `mock-${randomBytes(12).toString("hex")}`;
      tokens.set(token, grant.account);
      return json(res, 200, { access_token: token, token_type: "bearer", scope: "" });
    }
    if (req.method === "GET" && url.pathname === flavor.userPath) {
      const account = tokens.get((req.headers.authorization ?? "").replace(/^Bearer\s+/i, ""));
      if (!account) return json(res, 401, { message: "Bad credentials" });
      return json(res, 200, flavor.userJson(account));
    }
    json(res, 404, { message: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mock.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return mock;
}
