import { describe, expect, it } from "vitest";
import { CSV_BOM, csvCell, csvLine, csvStream } from "@/lib/logs/csv";
import { parseCsv } from "@/tests/helpers/csv";

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function* batchesOf(batches: string[][][]) {
  for (const b of batches) yield b;
}

describe("csvCell", () => {
  it("leaves plain text and numbers as they are", () => {
    expect(csvCell("gpt-4o")).toBe("gpt-4o");
    expect(csvCell("充值 5 美元")).toBe("充值 5 美元");
    expect(csvCell(42)).toBe("42");
    expect(csvCell(-5)).toBe("-5");
    expect(csvCell(12n)).toBe("12");
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
    expect(csvCell("")).toBe("");
  });

  it("quotes cells with quotes, commas and line breaks, doubling the quotes", () => {
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell("line1\nline2")).toBe('"line1\nline2"');
    expect(csvCell("cr\r\nlf")).toBe('"cr\r\nlf"');
  });

  it("prefixes text a spreadsheet would run as a formula with an apostrophe", () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvCell("+1+1")).toBe("'+1+1");
    expect(csvCell("-2+3")).toBe("'-2+3");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\tcmd")).toBe("'\tcmd");
    expect(csvCell("a=b")).toBe("a=b");
  });
});

describe("csvStream", () => {
  it("starts with a UTF-8 BOM, then the header, with CRLF line ends", async () => {
    const bytes = await bytesOf(csvStream(["时间", "详情"], batchesOf([[["2026-01-01 00:00:00", "你好, 世界"]]])));
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    expect(text).toBe(`${CSV_BOM}时间,详情\r\n2026-01-01 00:00:00,"你好, 世界"\r\n`);
  });

  it("round-trips awkward cells through a CSV reader", async () => {
    const cells = ['a "quoted" word', "multi\nline", "comma, inside", "=1+2", "plain"];
    const text = await new Response(csvStream(["x", "y", "z", "w", "v"], batchesOf([[cells]]))).text();
    expect(parseCsv(text)).toEqual([
      ["x", "y", "z", "w", "v"],
      ['a "quoted" word', "multi\nline", "comma, inside", "'=1+2", "plain"],
    ]);
  });

  it("reads a batch only when the reader asks for more", async () => {
    let pulled = 0;
    async function* counting() {
      for (let i = 0; i < 10; i++) {
        pulled++;
        yield [[`row ${i}`]];
      }
    }
    const reader = csvStream(["h"], counting()).getReader();
    await reader.read(); // the header
    await reader.read(); // the first batch
    await new Promise((resolve) => setTimeout(resolve, 20));
    // One batch read ahead at most (the stream's high-water mark), not the whole source.
    expect(pulled).toBeLessThanOrEqual(2);
    await reader.cancel();
  });

  it("writes one line per record", () => {
    expect(csvLine(["a", 1, ""])).toBe("a,1,\r\n");
  });
});
