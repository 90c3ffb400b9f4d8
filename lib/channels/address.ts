// Where a channel may point, and who may move it. A channel's address is its base_url (or, when
// empty, its type's default URL); its type also decides the address. An admin below root who
// could repoint a channel without knowing its key could have the stored key sent to a host of
// their choosing, and could reach hosts inside the network through channel tests and the relay.
// So, for callers below root:
//  - moving an existing channel (base_url or type) needs its key re-entered in the same request;
//  - while root has turned ChannelPrivateAddressAllowed off, the address may not be, or resolve
//    to, a loopback, private, link-local, CGNAT or unspecified address (refused here on save, and
//    again by the relay's connection pool at connect time: see agentForChannel).
// Root's addresses are never checked. The channel row records whether root set its address
// (`address_by_root`); a save by root that includes base_url or type approves the address.
// Some types build the address from `other` too (a Vertex AI region is part of the host, a
// Cloudflare account id names whose account is called; lib/channels/other checks its shape). A
// change of that `other` on a channel keeping its type moves it as well, more strictly: root
// only, with the key re-entered in the same request, so no stored credential follows a new
// address that its owner did not type.
import { ApiError, badRequest } from "@/lib/errors";
import { isRoot } from "@/lib/auth/roles";
import { channelTypeInfo } from "@/lib/channels/catalog";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import { trimTrailingSlashes } from "@/lib/channels/fields";
import { internalAddressOf } from "@/lib/net/public-connect";
import { getOptions } from "@/lib/options";

export type ChannelAddress = { type: number; base_url: string };
type Actor = { role: number };

/** The host a channel's requests go to (an IPv6 literal without brackets), or null when its URL does not parse. */
function hostOf({ type, base_url }: ChannelAddress): string | null {
  const url = base_url || channelTypeInfo(type)?.baseUrl || "";
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "") || null;
  } catch {
    return null;
  }
}

/** Whether a save moves the channel: a different type or base_url than stored. */
export const movesChannel = (from: ChannelAddress, to: ChannelAddress) =>
  from.type !== to.type || trimTrailingSlashes(from.base_url) !== trimTrailingSlashes(to.base_url);

/** Refuses a change of an address-shaping `other` unless root makes it with the key re-entered (`keyGiven`). */
export function checkOtherChange(actor: Actor, type: number, keyGiven: boolean): void {
  const label = channelTypeInfo(type)?.other?.label ?? "other";
  if (!isRoot(actor)) throw new ApiError(CHANNEL_MSG.otherRootOnly(label), 403);
  if (!keyGiven) throw badRequest(CHANNEL_MSG.keyRequiredToChangeOther(label));
}

/**
 * Refuses an address `actor` may not give a channel: a move without the key re-entered (`keyGiven`
 * is always true on create), or an internal address while ChannelPrivateAddressAllowed is off.
 */
export async function checkChannelAddress(actor: Actor, address: ChannelAddress, keyGiven: boolean): Promise<void> {
  if (isRoot(actor)) return;
  if (!keyGiven) throw badRequest(CHANNEL_MSG.keyRequiredToMove);
  if ((await getOptions()).ChannelPrivateAddressAllowed) return;
  const host = hostOf(address);
  const internal = host && (await internalAddressOf(host));
  if (internal) throw new ApiError(CHANNEL_MSG.internalAddress(host, internal), 403);
}

/**
 * The address columns an update writes. Root writes the base_url and type it sent and thereby sets
 * (approves) the address. Below root a move makes it an admin's address, and an unchanged address
 * is not written at all: a form loaded before someone else's move must not undo that move, nor
 * keep root's approval for an address root never saw.
 */
export function addressColumns(
  actor: Actor,
  sent: Partial<ChannelAddress>,
  moved: boolean,
): Partial<ChannelAddress> & { address_by_root?: boolean } {
  const given = Object.fromEntries(Object.entries(sent).filter(([, v]) => v !== undefined)) as Partial<ChannelAddress>;
  if (isRoot(actor)) return Object.keys(given).length > 0 ? { ...given, address_by_root: true } : {};
  return moved ? { ...given, address_by_root: false } : {};
}
