// Reading and rewriting single fields of a multipart/form-data body (audio transcriptions and
// translations) without decoding the file parts. RFC 7578 framing: parts are separated by
// CRLF "--boundary", each part is headers, a blank line, then content.
import { RelayError } from "../errors";

export interface MultipartPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  /** Offset of the part's first header byte. */
  headerStart: number;
  /** Offsets of the part's content [dataStart, dataEnd). */
  dataStart: number;
  dataEnd: number;
}

export interface MultipartLayout {
  parts: MultipartPart[];
  /** Offset of the closing "--boundary--" delimiter (after its leading CRLF). */
  closeAt: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The boundary parameter of a multipart Content-Type, or null. */
export function multipartBoundary(contentType: string | null | undefined): string | null {
  if (!contentType || !/^\s*multipart\//i.test(contentType)) return null;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const b = m ? (m[1] ?? m[2]) : null;
  return b && b.length <= 70 ? b : null;
}

function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(first, from); i !== -1 && i <= last; i = hay.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.length && hay[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}

function dispositionParam(header: string, param: string): string | null {
  const re = new RegExp(`;\\s*${param}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, "i");
  const m = re.exec(header);
  if (!m) return null;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? null);
}

/** Locate every part. Null when the body is not well-formed multipart for this boundary. */
export function parseMultipart(body: Uint8Array, boundary: string): MultipartLayout | null {
  const dash = encoder.encode(`--${boundary}`);
  const delim = encoder.encode(`\r\n--${boundary}`);
  // The first delimiter may be at offset 0 (no preamble) or after a preamble and CRLF.
  let at = body.length >= dash.length && indexOfBytes(body.subarray(0, dash.length), dash, 0) === 0 ? 0 : indexOfBytes(body, delim, 0);
  if (at < 0) return null;
  if (at > 0) at += 2;
  const parts: MultipartPart[] = [];
  for (;;) {
    let p = at + dash.length;
    if (body[p] === 0x2d && body[p + 1] === 0x2d) return { parts, closeAt: at };
    // Transport padding before the CRLF is allowed.
    while (body[p] === 0x20 || body[p] === 0x09) p++;
    if (body[p] !== 0x0d || body[p + 1] !== 0x0a) return null;
    const headerStart = p + 2;
    const headerEnd = indexOfBytes(body, encoder.encode("\r\n\r\n"), headerStart);
    if (headerEnd < 0) return null;
    const dataStart = headerEnd + 4;
    const next = indexOfBytes(body, delim, headerEnd + 2);
    if (next < 0) return null;
    const headers = decoder.decode(body.subarray(headerStart, headerEnd));
    let name: string | null = null;
    let filename: string | null = null;
    let contentType: string | null = null;
    for (const line of headers.split("\r\n")) {
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const h = line.slice(0, colon).trim().toLowerCase();
      const v = line.slice(colon + 1).trim();
      if (h === "content-disposition") {
        name = dispositionParam(v, "name");
        filename = dispositionParam(v, "filename");
      } else if (h === "content-type") contentType = v;
    }
    parts.push({ name: name ?? "", filename, contentType, headerStart, dataStart, dataEnd: next });
    at = next + 2;
  }
}

function layoutOrThrow(body: Uint8Array, contentType: string): { layout: MultipartLayout; boundary: string } {
  const boundary = multipartBoundary(contentType);
  const layout = boundary ? parseMultipart(body, boundary) : null;
  if (!boundary || !layout) {
    throw new RelayError(400, "request body is not valid multipart/form-data", {
      type: "invalid_request_error",
      code: "invalid_multipart",
    });
  }
  return { layout, boundary };
}

export interface MultipartForm {
  /** Text of the first non-file part of each name. */
  fields: Record<string, string>;
  /** Names of all parts, files included. */
  names: Set<string>;
}

/** Every text field and part name, from one pass over the body; null when it is not multipart. */
export function readMultipartForm(body: Uint8Array, contentType: string): MultipartForm | null {
  const boundary = multipartBoundary(contentType);
  const layout = boundary ? parseMultipart(body, boundary) : null;
  if (!layout) return null;
  const fields: Record<string, string> = Object.create(null);
  const names = new Set<string>();
  for (const p of layout.parts) {
    names.add(p.name);
    if (p.filename === null && !(p.name in fields)) fields[p.name] = decoder.decode(body.subarray(p.dataStart, p.dataEnd));
  }
  return { fields, names };
}

/** Text value of the first non-file field called `name`, or undefined. */
export function readMultipartField(body: Uint8Array, contentType: string, name: string): string | undefined {
  const boundary = multipartBoundary(contentType);
  const layout = boundary ? parseMultipart(body, boundary) : null;
  const part = layout?.parts.find((p) => p.name === name && p.filename === null);
  return part ? decoder.decode(body.subarray(part.dataStart, part.dataEnd)) : undefined;
}

/** Bytes of the first part called `name` (typically the uploaded `file`), with its metadata. */
export function readMultipartFile(
  body: Uint8Array,
  contentType: string,
  name: string,
): { data: Uint8Array; filename: string | null; contentType: string | null } | undefined {
  const boundary = multipartBoundary(contentType);
  const layout = boundary ? parseMultipart(body, boundary) : null;
  const part = layout?.parts.find((p) => p.name === name);
  return part ? { data: body.subarray(part.dataStart, part.dataEnd), filename: part.filename, contentType: part.contentType } : undefined;
}

/**
 * Set a text field: its content is replaced in place, or a new part is added before the closing
 * delimiter when absent. Returns the input itself when the value is already `value`. The
 * boundary is unchanged, so the client's Content-Type header stays valid. Throws 400 on a body
 * that is not multipart for that Content-Type.
 */
export function setMultipartField(body: Uint8Array, contentType: string, name: string, value: string): Uint8Array {
  const { layout, boundary } = layoutOrThrow(body, contentType);
  const bytes = encoder.encode(value);
  const part = layout.parts.find((p) => p.name === name && p.filename === null);
  let start: number;
  let end: number;
  let insert: Uint8Array;
  if (part) {
    const cur = body.subarray(part.dataStart, part.dataEnd);
    if (cur.length === bytes.length && cur.every((b, i) => b === bytes[i])) return body;
    start = part.dataStart;
    end = part.dataEnd;
    insert = bytes;
  } else {
    const safeName = name.replace(/["\r\n]/g, (c) => encodeURIComponent(c));
    const head = encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${safeName}"\r\n\r\n`);
    insert = new Uint8Array(head.length + bytes.length + 2);
    insert.set(head, 0);
    insert.set(bytes, head.length);
    insert.set([0x0d, 0x0a], head.length + bytes.length);
    start = end = layout.closeAt;
  }
  const out = new Uint8Array(body.length - (end - start) + insert.length);
  out.set(body.subarray(0, start), 0);
  out.set(insert, start);
  out.set(body.subarray(end), start + insert.length);
  return out;
}
