// Option messages the console shows in the browser too (no server code in here).

/** The message of the spec (§5 Options) for a JSON option whose value does not parse. */
export const INVALID_JSON_MESSAGE = "不是合法的 JSON 字符串";
