// Saves changed options one by one through PUT /api/option/ (the server validates each; api()
// shows its refusal). Stops at the first refusal: what was saved before it stays saved.
import { api } from "@/lib/client/api";

export async function saveOptions(changed: Readonly<Record<string, string>>): Promise<boolean> {
  for (const [key, value] of Object.entries(changed)) {
    const res = await api("PUT", "/api/option/", { key, value });
    if (!res.success) return false;
  }
  return true;
}

/** The options whose value differs from what was saved. */
export function changedOptions<K extends string>(values: Record<K, string>, saved: Record<K, string>): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of Object.keys(values) as K[]) if (values[key] !== saved[key]) out[key] = values[key];
  return out;
}
