import { describe, expect, it } from "vitest";
import { escapeLike, textFilter } from "@/lib/db/text-search";

describe("escapeLike", () => {
  it("escapes LIKE's wildcards and its escape character", () => {
    expect(escapeLike("50%_off\\x")).toBe("50\\%\\_off\\\\x");
    expect(escapeLike("plain")).toBe("plain");
  });
});

describe("textFilter", () => {
  it("escapes the text for PostgreSQL and MySQL, and leaves a plain text to Prisma on SQLite", async () => {
    expect(await textFilter("users", "username", "contains", "a_b", { kind: "postgresql" })).toEqual({ username: { contains: "a\\_b" } });
    expect(await textFilter("tokens", "name", "startsWith", "1%", { kind: "mysql" })).toEqual({ name: { startsWith: "1\\%" } });
    expect(await textFilter("users", "email", "endsWith", "x.com", { kind: "sqlite" })).toEqual({ email: { endsWith: "x.com" } });
  });
});
