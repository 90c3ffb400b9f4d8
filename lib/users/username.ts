// What a username may be, and the key that keeps names unique whatever their case or form
// (issue 20.7, 20.8). One rule for every path that names an account: registration, renaming in
// personal settings, and an admin's create and edit. zod only, so forms can share it.
import { z } from "zod";

export const USERNAME_MAX = 20;

export const USERNAME_MSG = {
  invalid: `用户名长度为 1–${USERNAME_MAX} 个字符，且不能包含空白字符`,
  at: "用户名不能包含 @ 符号",
  invisible: "用户名不能包含不可见字符或控制字符",
  taken: "用户名已存在，或已注销",
} as const;

// Characters that do not show, or show as something else: controls (C0, C1), format characters
// (zero-width space and joiners, BOM, bidi controls), surrogates, private use, unassigned, line
// and paragraph separators, and the default-ignorables outside those (Hangul fillers, variation
// selectors…). Spaces are refused by the whitespace rule.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/**
 * A username as stored: NFKC-normalized (fullwidth `Ｒｏｏｔ` is `Root`), trimmed, 1–20
 * characters, no whitespace, no `@` (an e-mail signs in by e-mail only, never as a name), nothing
 * invisible.
 */
export const usernameSchema = z
  .string({ error: USERNAME_MSG.invalid })
  .normalize("NFKC")
  .trim()
  .min(1, USERNAME_MSG.invalid)
  .max(USERNAME_MAX, USERNAME_MSG.invalid)
  .refine((name) => !INVISIBLE.test(name), USERNAME_MSG.invisible)
  .regex(/^\S+$/, USERNAME_MSG.invalid)
  .regex(/^[^@]+$/, USERNAME_MSG.at);

/**
 * The key two names must not share (users.username_key, unique): NFKC, then case-folded (upper
 * then lower, so `ß` meets `SS`), so `root`, `Root` and `ＲＯＯＴ` are one name. For printable
 * ASCII it is the name in lower case, which is how the migration filled it for existing rows.
 */
export const usernameKey = (name: string): string => name.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC");

/** The columns to write for a username. */
export const usernameColumns = (username: string) => ({ username, username_key: usernameKey(username) });
