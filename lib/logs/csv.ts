// CSV as Excel and every spreadsheet read it (RFC 4180): a UTF-8 byte order mark first (without
// it Excel reads UTF-8 Chinese as the ANSI code page), CRLF line ends, and a cell quoted when it
// holds a quote, a comma or a line break, its quotes doubled. A text cell that a spreadsheet would
// take for a formula (starting with = + - @, or a tab or carriage return, OWASP's list) gets a
// leading apostrophe, so a log's content or a token name can never run as a formula on the
// admin's machine. Numbers are written as they are: they cannot hold a formula, and -5 stays a number.

export const CSV_BOM = "\uFEFF";

export type CsvValue = string | number | boolean | bigint | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value !== "string") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, with its line end. */
export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(",")}\r\n`;
}

/**
 * A CSV body as a byte stream: the BOM and the header, then each batch's lines as the reader asks
 * for them (pull), so a slow download holds one batch in memory, never the whole file.
 */
export function csvStream(header: readonly string[], batches: AsyncIterator<readonly (readonly CsvValue[])[]>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(CSV_BOM + csvLine(header)));
    },
    async pull(controller) {
      const next = await batches.next();
      if (next.done) return controller.close();
      controller.enqueue(encoder.encode(next.value.map(csvLine).join("")));
    },
    async cancel() {
      await batches.return?.(undefined);
    },
  });
}
