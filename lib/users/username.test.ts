import { describe, expect, it } from "vitest";
import { USERNAME_MSG, usernameKey, usernameSchema } from "@/lib/users/username";

const message = (name: string) => {
  const r = usernameSchema.safeParse(name);
  return r.success ? null : r.error.issues[0]!.message;
};

describe("usernameSchema", () => {
  it("stores names NFKC-normalized and trimmed", () => {
    expect(usernameSchema.parse("\u3000Ｒｏｏｔ ")).toBe("Root");
    expect(usernameSchema.parse("ﬁle")).toBe("file");
    expect(usernameSchema.parse("张三")).toBe("张三");
  });

  it("refuses @, whitespace inside, and anything invisible or a control", () => {
    expect(message("alice@example.com")).toBe(USERNAME_MSG.at);
    expect(message("ａ＠ｂ")).toBe(USERNAME_MSG.at); // fullwidth @ normalizes to @
    expect(message("a b")).toBe(USERNAME_MSG.invalid);
    for (const c of [
      "\u200B",
      "\u200C",
      "\u200D",
      "\u2060",
      "\uFEFF",
      "\u202E",
      "\u2066",
      "\u00AD",
      "\u0000",
      "\u001F",
      "\u007F",
      "\u0085",
      "\u2028",
      "\u2029",
      "\u3164",
      "\uFE0F",
      "\uE000",
    ]) {
      expect(message(`ro${c}ot`), `U+${c.codePointAt(0)!.toString(16)}`).toBe(USERNAME_MSG.invisible);
    }
  });

  it("keeps the length limit after normalizing", () => {
    expect(message("a".repeat(20))).toBeNull();
    expect(message("a".repeat(21))).toBe(USERNAME_MSG.invalid);
    expect(message("")).toBe(USERNAME_MSG.invalid);
  });
});

describe("usernameKey", () => {
  it("is one key for one name in any case or width", () => {
    for (const name of ["root", "Root", "ROOT", "ｒｏｏｔ", "ＲＯＯＴ"]) expect(usernameKey(name)).toBe("root");
    expect(usernameKey("Straße")).toBe(usernameKey("STRASSE"));
    expect(usernameKey("alice_2")).toBe("alice_2");
  });
});
