// The bodies of POST and PUT /api/token/: the shared schemas (lib/tokens/schemas.ts) with the
// allow-list's addresses checked, which takes node:net and so stays on the server. `extend` keeps
// each field in its place, so the first refusal of a body is the one it always was.
import { parseCidrList } from "@/lib/net/ip";
import { allowIpsField, tokenCreateSchema, tokenUpdateSchema } from "@/lib/tokens/schemas";

const allowIps = allowIpsField((text) => parseCidrList(text).invalid).optional();

export const tokenCreateBody = tokenCreateSchema.extend({ allow_ips: allowIps });

export const tokenUpdateBody = tokenUpdateSchema.extend({ allow_ips: allowIps });
