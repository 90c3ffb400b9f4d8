// What the system tab shows on a field whose feature arrives with a later issue (the EPay gateway,
// the payments issue): it is shown disabled and off, never saved. Client-safe.

export const NOT_YET_OPEN = "尚未开放";
