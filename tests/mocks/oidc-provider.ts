// A mock OpenID Connect provider on 127.0.0.1: discovery document, JWKS, an authorize page that
// sends the browser straight back with a code, a token endpoint that checks the client, the
// redirect_uri and the PKCE verifier (S256) and issues RS256 id_tokens carrying the nonce of the
// authorize request, and a userinfo endpoint. `fault` makes the next id_token bad on purpose:
// signed by a key not in the JWKS (same kid), for another audience, with another nonce, or expired.
//
//   const idp = await startOidcMock();
//   // oidc.well_known = idp.wellKnown; oidc.client_id = idp.clientId; oidc.client_secret = idp.clientSecret
//   idp.fault = "wrong-nonce";
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export type OidcFault = "bad-signature" | "wrong-audience" | "wrong-nonce" | "expired";

export type OidcAccount = { sub: string; name: string; preferred_username: string; email: string };

export interface OidcMock {
  /** The issuer. */
  url: string;
  wellKnown: string;
  clientId: string;
  clientSecret: string;
  /** The account the next authorize signs in as. */
  account: OidcAccount;
  /** Makes the next id_token bad in this way (cleared once used). */
  fault: OidcFault | null;
  /** The query of each authorize request (to see the PKCE challenge and the nonce). */
  authorizeRequests: URLSearchParams[];
  close(): Promise<void>;
}

const KID = "mock-key-1";

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
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

export async function startOidcMock(): Promise<OidcMock> {
  const signing = await generateKeyPair("RS256", { extractable: true });
  const stranger = await generateKeyPair("RS256", { extractable: true });
  const publicJwk = { ...(await exportJWK(signing.publicKey)), kid: KID, alg: "RS256", use: "sig" };
  type Grant = { account: OidcAccount; redirect_uri: string; nonce: string; challenge: string };
  const codes = new Map<string, Grant>();
  const tokens = new Map<string, OidcAccount>();
  const mock: OidcMock = {
    url: "",
    wellKnown: "",
    clientId: "qiao-mock-client",
    clientSecret: "qiao-mock-secret",
    account: { sub: "oidc-sub-1", name: "OIDC Person", preferred_username: "oidc.person", email: "person@idp.example" },
    fault: null,
    authorizeRequests: [],
    close: async () => {},
  };

  async function idToken(grant: Grant): Promise<string> {
    const fault = mock.fault;
    mock.fault = null;
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ nonce: fault === "wrong-nonce" ? "another-nonce" : grant.nonce, name: grant.account.name })
      .setProtectedHeader({ alg: "RS256", kid: KID })
      .setIssuer(mock.url)
      .setSubject(grant.account.sub)
      .setAudience(fault === "wrong-audience" ? "someone-else" : mock.clientId)
      .setIssuedAt(fault === "expired" ? now - 7200 : now)
      .setExpirationTime(fault === "expired" ? now - 3600 : now + 600);
    return jwt.sign(fault === "bad-signature" ? stranger.privateKey : signing.privateKey);
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readBody(req);
    if (req.method === "GET" && url.pathname === "/.well-known/openid-configuration") {
      return json(res, 200, {
        issuer: mock.url,
        authorization_endpoint: `${mock.url}/authorize`,
        token_endpoint: `${mock.url}/token`,
        userinfo_endpoint: `${mock.url}/userinfo`,
        jwks_uri: `${mock.url}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        scopes_supported: ["openid", "profile", "email"],
      });
    }
    if (req.method === "GET" && url.pathname === "/jwks") return json(res, 200, { keys: [publicJwk] });
    if (req.method === "GET" && url.pathname === "/authorize") {
      const q = url.searchParams;
      mock.authorizeRequests.push(q);
      const redirect = q.get("redirect_uri") ?? "";
      const ok =
        q.get("client_id") === mock.clientId &&
        q.get("response_type") === "code" &&
        (q.get("scope") ?? "").split(" ").includes("openid") &&
        q.get("code_challenge_method") === "S256" &&
        !!q.get("code_challenge") &&
        !!q.get("nonce") &&
        !!redirect;
      if (!ok) {
        res.writeHead(400, { "content-type": "text/plain" });
        return res.end("bad authorize request");
      }
      const code = randomBytes(12).toString("hex");
      codes.set(code, {
        account: { ...mock.account },
        redirect_uri: redirect,
        nonce: q.get("nonce")!,
        challenge: q.get("code_challenge")!,
      });
      const back = new URL(redirect);
      back.searchParams.set("code", code);
      if (q.get("state") !== null) back.searchParams.set("state", q.get("state")!);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (req.method === "POST" && url.pathname === "/token") {
      const form = new URLSearchParams(body);
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      const [id, secret] = basic
        ? Buffer.from(basic, "base64")
            .toString()
            .split(":")
            .map((v) => decodeURIComponent(v))
        : [form.get("client_id"), form.get("client_secret")];
      if (id !== mock.clientId || secret !== mock.clientSecret) return json(res, 401, { error: "invalid_client" });
      const grant = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      if (!grant || grant.redirect_uri !== form.get("redirect_uri")) return json(res, 400, { error: "invalid_grant" });
      if (s256(form.get("code_verifier") ?? "") !== grant.challenge) {
        return json(res, 400, { error: "invalid_grant", error_description: "PKCE verification failed" });
      }
      const access = `at-${randomBytes(12).toString("hex")}`;
      tokens.set(access, grant.account);
      return json(res, 200, { access_token: access, token_type: "Bearer", expires_in: 300, id_token: await idToken(grant) });
    }
    if (req.method === "GET" && url.pathname === "/userinfo") {
      const account = tokens.get((req.headers.authorization ?? "").replace(/^Bearer\s+/i, ""));
      if (!account) return json(res, 401, { error: "invalid_token" });
      return json(res, 200, account);
    }
    json(res, 404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mock.wellKnown = `${mock.url}/.well-known/openid-configuration`;
  mock.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return mock;
}
