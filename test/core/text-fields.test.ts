import { describe, expect, it } from "vitest";
import { plainText, searchTerm } from "../../src/core/http/fields";

describe("plainText", () => {
  const name = plainText({ min: 1, max: 10 });
  const multiline = plainText({ max: 50, multiline: true });

  it("trims and keeps ordinary text, including right-to-left scripts", () => {
    expect(name.parse("  Ann  ")).toBe("Ann");
    expect(name.parse("مريم")).toBe("مريم");
  });

  it("refuses control characters, DEL, C1 and bidi overrides with a readable message", () => {
    for (const value of ["A\u0000B", "A\u0007", "A\u007F", "A\u0085B", "A\nB", "A\tB"]) {
      const result = name.safeParse(value);
      expect({ value, message: result.error?.issues[0]?.message }).toEqual({ value, message: "must not contain control characters" });
    }
    for (const value of ["\u202Egnp.exe", "A\u2066B", "A\u202AB"]) {
      const result = name.safeParse(value);
      expect({ value, message: result.error?.issues[0]?.message }).toEqual({ value, message: "must not contain bidirectional override characters" });
    }
  });

  it("allows tab and newline only in multi-line fields", () => {
    expect(multiline.parse("line one\n\tline two")).toBe("line one\n\tline two");
    expect(multiline.safeParse("bell\u0007").success).toBe(false);
  });

  it("applies the length bounds after trimming", () => {
    expect(name.safeParse("   ").success).toBe(false);
    expect(name.safeParse("x".repeat(11)).success).toBe(false);
    expect(name.parse(` ${"x".repeat(10)} `)).toBe("x".repeat(10));
  });
});

describe("searchTerm", () => {
  const q = searchTerm(20);

  it("treats a blank or missing term as no filter", () => {
    expect(q.parse(undefined)).toBeUndefined();
    expect(q.parse("   ")).toBeUndefined();
    expect(q.parse(" ann ")).toBe("ann");
  });

  it("refuses control characters such as NUL, and overlong terms", () => {
    expect(q.safeParse("\u0000zzz").success).toBe(false);
    expect(q.safeParse("a\u001Fb").success).toBe(false);
    expect(q.safeParse("x".repeat(21)).success).toBe(false);
  });

  it("keeps LIKE wildcards as text (they are escaped where the term is used)", () => {
    expect(q.parse("50%_off\\")).toBe("50%_off\\");
  });
});
