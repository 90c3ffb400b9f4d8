// A software authenticator for API tests: an ES256 key made with node:crypto, and the bytes a
// browser and an authenticator would send (clientDataJSON, authenticatorData, a "none"
// attestation object, a DER signature), built by hand so the server's library checks real
// responses. Each field can be bent to make the response a test needs (another origin, another
// RP ID, a counter, no user verification).
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";

// ── A minimal CBOR encoder: unsigned and negative integers, byte and text strings, maps ──

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(length, 1);
  return b;
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const parts: Buffer[] = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

// ── The authenticator ──

const FLAG = { up: 0x01, uv: 0x04, be: 0x08, bs: 0x10, at: 0x40 } as const;

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();
const b64url = (data: Buffer | Uint8Array) => Buffer.from(data).toString("base64url");

/** What a response may bend. */
export type Bend = {
  /** The origin the "browser" reports (default: the authenticator's). */
  origin?: string;
  /** The RP ID the "authenticator" signs for (default: the options' rp id). */
  rpId?: string;
  /** The challenge echoed (default: the options' challenge). */
  challenge?: string;
  /** The signature counter (default: the authenticator's, moved on by one when it counts). */
  counter?: number;
  /** User verification done (default true). */
  userVerified?: boolean;
  /** The user handle returned (default: the one registered). */
  userHandle?: string | null;
};

type CreationOptions = { challenge: string; rp: { id?: string }; user: { id: string } };
type RequestOptions = { challenge: string; rpId?: string };

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  /** 0 means the authenticator does not count (as synced passkeys do). */
  counter: number;
  userHandle = "";

  constructor(
    readonly origin = "http://localhost",
    options: { counting?: boolean } = {},
  ) {
    const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
    this.counter = options.counting ? 1 : 0;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The COSE_Key of the public key (kty EC2, alg ES256, crv P-256, x, y). */
  private coseKey(): Buffer {
    const jwk = this.publicKey.export({ format: "jwk" });
    return cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
  }

  private clientData(type: string, challenge: string, bend: Bend): Buffer {
    return Buffer.from(
      JSON.stringify({ type, challenge: bend.challenge ?? challenge, origin: bend.origin ?? this.origin, crossOrigin: false }),
    );
  }

  private authData(rpId: string, counter: number, bend: Bend, attested: boolean): Buffer {
    let flags = FLAG.up;
    if (bend.userVerified !== false) flags |= FLAG.uv;
    if (attested) flags |= FLAG.at;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const parts: Uint8Array[] = [sha256(bend.rpId ?? rpId), Buffer.from([flags]), count];
    if (attested) {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(this.credentialId.length);
      parts.push(Buffer.alloc(16), length, this.credentialId, this.coseKey());
    }
    return Buffer.concat(parts);
  }

  /** A registration response (RegistrationResponseJSON) to `options.publicKey` of register/begin. */
  register(options: CreationOptions, bend: Bend = {}) {
    this.userHandle = options.user.id;
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const clientDataJSON = this.clientData("webauthn.create", options.challenge, bend);
    const authData = this.authData(rpId, bend.counter ?? this.counter, bend, true);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
    };
  }

  /** An assertion (AuthenticationResponseJSON) to `options.publicKey` of login/begin or verify/begin. */
  assert(options: RequestOptions, bend: Bend = {}) {
    if (bend.counter === undefined && this.counter > 0) this.counter += 1;
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    const clientDataJSON = this.clientData("webauthn.get", options.challenge, bend);
    const authData = this.authData(rpId, bend.counter ?? this.counter, bend, false);
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    const userHandle = bend.userHandle === undefined ? this.userHandle : bend.userHandle;
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: userHandle || null,
      },
    };
  }
}
