import { describe, expect, it } from "vitest";
import { findSensitiveWord, matcherFor, promptCheckEnabled, sensitiveWordList, WordMatcher } from "./sensitive";

/** What the automaton must agree with: is any word a substring of the lower-cased text. */
const naive = (words: string[], text: string) => words.some((w) => text.toLowerCase().includes(w));

describe("WordMatcher", () => {
  it("finds a word anywhere, inside longer words too, ignoring case", () => {
    const m = new WordMatcher(sensitiveWordList("he\nshe\nhis\nhers\n炸弹"));
    expect(m.find("ushers")).toBe("she");
    expect(m.find("THIS")).toBe("his");
    expect(m.find("如何制作炸弹？")).toBe("炸弹");
    expect(m.find("hi there")).toBe("he");
    expect(m.find("hi, ok")).toBeNull();
    expect(m.find("")).toBeNull();
  });

  it("takes the longest suffix that is a word (failure links)", () => {
    const m = new WordMatcher(["abcd", "bc", "bcx"]);
    expect(m.find("abcx")).toBe("bc");
    expect(m.find("aabcd")).toBe("bc");
    expect(new WordMatcher(["abcd", "cde"]).find("abcde")).toBe("abcd");
    expect(new WordMatcher(["aab"]).find("aaab")).toBe("aab");
  });

  it("agrees with a plain substring search on random texts and lists", () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed % n;
    };
    const alphabet = "abcAB中文ﬀ";
    const word = (len: number) => Array.from({ length: len }, () => alphabet[rand(alphabet.length)]).join("");
    for (let round = 0; round < 300; round++) {
      const words = sensitiveWordList(Array.from({ length: 1 + rand(6) }, () => word(1 + rand(4))).join("\n"));
      const m = new WordMatcher(words);
      for (let t = 0; t < 10; t++) {
        const text = word(rand(30));
        const found = m.find(text);
        expect(found !== null).toBe(naive(words, text));
        if (found !== null) expect(text.toLowerCase()).toContain(found);
      }
    }
  });

  it("agrees with it on a list too large for complete rows (the sorted children and failure links)", () => {
    let seed = 11;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed % n;
    };
    // 2000 distinct characters: complete rows for ~500 states of the ~20 000.
    const char = () => String.fromCharCode(0x4e00 + rand(2000));
    const words = Array.from({ length: 8000 }, () => Array.from({ length: 2 + rand(3) }, char).join(""));
    const m = new WordMatcher(words);
    let hits = 0;
    for (let t = 0; t < 400; t++) {
      const text = Array.from({ length: 200 }, char).join("");
      const found = m.find(text);
      expect(found !== null).toBe(naive(words, text));
      if (found !== null) hits++;
    }
    expect(hits).toBeGreaterThan(20);
    expect(hits).toBeLessThan(400);
  });

  it("an empty list matches nothing", () => {
    expect(new WordMatcher(sensitiveWordList("\n  \n")).find("anything")).toBeNull();
  });
});

describe("sensitiveWordList / matcherFor", () => {
  it("one word a line, trimmed, lower-cased, blank lines dropped", () => {
    expect(sensitiveWordList(" Foo \r\n\nBAR baz\n")).toEqual(["foo", "bar baz"]);
  });

  it("keeps the automaton while the list is the same and rebuilds it when it changes", () => {
    const a = matcherFor("alpha\nbeta");
    expect(matcherFor(["alpha", "beta"].join("\n"))).toBe(a);
    const b = matcherFor("gamma");
    expect(b).not.toBe(a);
    expect(b.find("alpha")).toBeNull();
    expect(b.find("GAMMA ray")).toBe("gamma");
  });
});

describe("findSensitiveWord", () => {
  const m = new WordMatcher(["secret"]);
  it("reads message strings and text parts, prompt and input", () => {
    expect(findSensitiveWord({ messages: [{ role: "user", content: "a Secret plan" }] }, m)).toBe("secret");
    expect(
      findSensitiveWord(
        {
          messages: [
            { role: "system", content: "be nice" },
            {
              role: "user",
              content: [
                { type: "image_url", image_url: { url: "https://x/secret.png" } },
                { type: "text", text: "top secret" },
              ],
            },
          ],
        },
        m,
      ),
    ).toBe("secret");
    expect(findSensitiveWord({ prompt: ["ok", "secret"] }, m)).toBe("secret");
    expect(findSensitiveWord({ input: "SECRET" }, m)).toBe("secret");
    expect(findSensitiveWord({ input: [{ type: "text", text: "secret" }] }, m)).toBe("secret");
  });

  it("does not look at images, token arrays or other members", () => {
    expect(
      findSensitiveWord(
        {
          model: "secret",
          user: "secret",
          messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x/secret.png" } }] }],
          input: [[1, 2, 3]],
        },
        m,
      ),
    ).toBeNull();
  });
});

describe("promptCheckEnabled", () => {
  it("needs both switches", () => {
    expect(promptCheckEnabled({ CheckSensitiveEnabled: true, CheckSensitiveOnPromptEnabled: true })).toBe(true);
    expect(promptCheckEnabled({ CheckSensitiveEnabled: false, CheckSensitiveOnPromptEnabled: true })).toBe(false);
    expect(promptCheckEnabled({ CheckSensitiveEnabled: true, CheckSensitiveOnPromptEnabled: false })).toBe(false);
  });
});

describe("findSensitiveWord on nesting a client can send", () => {
  it("walks arrays 20 000 deep without overflowing the stack, in order", () => {
    const deep = JSON.parse(`${"[".repeat(20_000)}"forbidden fruit"${"]".repeat(20_000)}`);
    const matcher = matcherFor("forbidden fruit\nother");
    expect(findSensitiveWord({ messages: [{ role: "user", content: deep }] }, matcher)).toBe("forbidden fruit");
    expect(findSensitiveWord({ prompt: [["a", ["other"]], "forbidden fruit"] }, matcher)).toBe("other");
    expect(findSensitiveWord({ input: JSON.parse(`${"[".repeat(20_000)}${"]".repeat(20_000)}`) }, matcher)).toBeNull();
  });
});
