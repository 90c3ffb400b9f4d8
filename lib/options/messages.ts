// Messages of option rules that the settings page also checks before it saves. Kept free of
// imports so client components can share them with lib/options/registry.ts.

/** Spec §5 Options: payment settings are useless without the address EPay calls back. */
export const PAYMENT_NEEDS_SERVER_ADDRESS = "请先填写服务器地址（ServerAddress），再保存支付设置";

/** The message of the spec (§5 Options) for a JSON option whose value does not parse. */
export const INVALID_JSON_MESSAGE = "不是合法的 JSON 字符串";

/** The spec's one text (§8) for a save with nothing changed: the settings cards and the channel editor. */
export const NOTHING_CHANGED = "你似乎并没有修改什么";
