// The logged-in user as the console keeps it in local storage (spec §3); the status object is
// lib/ui/site-status.ts's.

export type StoredUser = {
  id: number;
  username: string;
  display_name?: string;
  role: number;
  status?: number;
  group?: string;
  quota?: number;
  [key: string]: unknown;
};
