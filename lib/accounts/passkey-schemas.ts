// What a browser sends back from a WebAuthn ceremony (the JSON @simplewebauthn/browser makes, and
// new-api's frontend too), checked for shape and size before anything is decoded.
import { z } from "zod";

const MSG = "通行密钥的响应格式无效，请重试";

/** base64url, as WebAuthn's JSON encodes every binary field. */
const b64url = (max: number) =>
  z
    .string(MSG)
    .max(max, MSG)
    .regex(/^[A-Za-z0-9_-]*$/, MSG);

/** A credential id is at most 1023 bytes (the WebAuthn spec, "credential ID"): 1364 base64url characters. */
const credentialId = b64url(1364).min(1, MSG);

const common = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal("public-key", MSG),
  authenticatorAttachment: z.string().max(32).nullish(),
  clientExtensionResults: z.record(z.string(), z.unknown()).optional().default({}),
};

export const registrationResponseSchema = z.object({
  ...common,
  response: z.looseObject({
    clientDataJSON: b64url(8192),
    attestationObject: b64url(65536),
    transports: z.array(z.string().max(32)).max(16).optional(),
  }),
});

export const authenticationResponseSchema = z.object({
  ...common,
  response: z.looseObject({
    clientDataJSON: b64url(8192),
    authenticatorData: b64url(8192),
    signature: b64url(2048),
    userHandle: b64url(128).nullish(),
  }),
});

export type RegistrationResponseInput = z.output<typeof registrationResponseSchema>;
export type AuthenticationResponseInput = z.output<typeof authenticationResponseSchema>;

export const PASSKEY_NAME_MAX = 50;

export const passkeyBeginSchema = z.object({
  name: z.string().trim().max(PASSKEY_NAME_MAX, `名称不能超过 ${PASSKEY_NAME_MAX} 个字符`).optional().default(""),
});
