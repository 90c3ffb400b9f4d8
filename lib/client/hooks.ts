"use client";
// React views of the stored user and status. The server render cannot see local storage, so it
// renders from the session hint (decoded from the cookie by the root layout) and the client
// switches to local storage right after hydration, without a hydration mismatch.
import { createContext, useContext, useSyncExternalStore } from "react";
import { readRaw, STORAGE_KEYS, subscribeStorage } from "@/lib/client/storage";
import type { StoredUser } from "@/lib/client/types";
import type { SiteStatus } from "@/lib/ui/site-status";

export type SessionHint = { id: number; username: string; role: number } | null;

export const SessionHintContext = createContext<SessionHint>(null);

/** Parses a stored JSON key, returning the same object while the raw string is unchanged. */
function cachedJson<T>(key: string, accept: (value: unknown) => value is T) {
  let lastRaw: string | null = null;
  let lastValue: T | null = null;
  return (): T | null => {
    const raw = readRaw(key);
    if (raw === lastRaw) return lastValue;
    lastRaw = raw;
    try {
      const value: unknown = raw ? JSON.parse(raw) : null;
      lastValue = accept(value) ? value : null;
    } catch {
      lastValue = null;
    }
    return lastValue;
  };
}

const userSnapshot = cachedJson<StoredUser>(
  STORAGE_KEYS.user,
  (v): v is StoredUser => !!v && typeof v === "object" && typeof (v as StoredUser).id === "number",
);
const statusSnapshot = cachedJson<SiteStatus>(
  STORAGE_KEYS.status,
  (v): v is SiteStatus => !!v && typeof v === "object" && !Array.isArray(v),
);

const hintUsers = new WeakMap<object, StoredUser>();
function hintAsUser(hint: SessionHint): StoredUser | null {
  if (!hint) return null;
  let user = hintUsers.get(hint);
  if (!user) {
    user = { id: hint.id, username: hint.username, role: hint.role };
    hintUsers.set(hint, user);
  }
  return user;
}

/** The logged-in user as the console knows it (local storage `user`). */
export function useStoredUser(): StoredUser | null {
  const hint = useContext(SessionHintContext);
  return useSyncExternalStore(subscribeStorage, userSnapshot, () => hintAsUser(hint));
}

/** The cached /api/status object, null until it is first loaded. */
export function useSiteStatus(): SiteStatus | null {
  return useSyncExternalStore(subscribeStorage, statusSnapshot, () => null);
}

/** false during the server render and hydration, true afterwards. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noopSubscribe,
    () => true,
    () => false,
  );
}
const noopSubscribe = () => () => {};
