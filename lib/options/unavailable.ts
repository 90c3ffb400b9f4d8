// What the settings show on a field whose feature arrives with a later issue (the Midjourney
// switches of the operation tab): it is shown disabled and off, never saved. Client-safe.

export const NOT_YET_OPEN = "尚未开放";
