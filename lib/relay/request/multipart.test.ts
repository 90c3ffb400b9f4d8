import { describe, expect, it } from "vitest";
import { multipartBoundary, readMultipartField, readMultipartFile, readMultipartForm, setMultipartField } from "./multipart";

async function formBody(fields: Record<string, string | Blob>): Promise<{ body: Uint8Array; contentType: string }> {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === "string") fd.append(k, v);
    else fd.append(k, v, "audio.mp3");
  }
  const req = new Request("http://x/", { method: "POST", body: fd });
  return { body: new Uint8Array(await req.arrayBuffer()), contentType: req.headers.get("content-type")! };
}

async function reparse(body: Uint8Array, contentType: string): Promise<FormData> {
  return new Request("http://x/", {
    method: "POST",
    body: body as unknown as BodyInit,
    headers: { "content-type": contentType },
  }).formData();
}

describe("multipart", () => {
  // Bytes that contain CRLF and the boundary prefix, to prove the file part is never decoded.
  const audio = new Uint8Array([0x49, 0x44, 0x33, 0x0d, 0x0a, 0x2d, 0x2d, 0x00, 0xff, 0xfe, 0x0d, 0x0a]);

  it("parses the boundary from a Content-Type", () => {
    expect(multipartBoundary('multipart/form-data; boundary="abc def"')).toBe("abc def");
    expect(multipartBoundary("multipart/form-data; charset=utf-8; boundary=----x")).toBe("----x");
    expect(multipartBoundary("application/json")).toBeNull();
  });

  it("reads fields and the file part", async () => {
    const { body, contentType } = await formBody({ model: "whisper-1", file: new Blob([audio]), response_format: "srt" });
    expect(readMultipartField(body, contentType, "model")).toBe("whisper-1");
    expect(readMultipartField(body, contentType, "response_format")).toBe("srt");
    expect(readMultipartField(body, contentType, "missing")).toBeUndefined();
    const file = readMultipartFile(body, contentType, "file")!;
    expect(Array.from(file.data)).toEqual(Array.from(audio));
    expect(file.filename).toBe("audio.mp3");
  });

  it("reads every text field and part name in one pass, or null for a body that is not multipart", async () => {
    const { body, contentType } = await formBody({ model: "whisper-1", file: new Blob([audio]), response_format: "srt" });
    const form = readMultipartForm(body, contentType)!;
    expect({ ...form.fields }).toEqual({ model: "whisper-1", response_format: "srt" });
    expect([...form.names].sort()).toEqual(["file", "model", "response_format"]);
    expect(readMultipartForm(new TextEncoder().encode("hello"), contentType)).toBeNull();
    expect(readMultipartForm(body, "application/json")).toBeNull();
  });

  it("replaces an existing field, leaving the file bytes identical", async () => {
    const { body, contentType } = await formBody({ file: new Blob([audio]), model: "whisper-1", language: "zh" });
    const out = setMultipartField(body, contentType, "model", "whisper-large-v3");
    const fd = await reparse(out, contentType);
    expect(fd.get("model")).toBe("whisper-large-v3");
    expect(fd.get("language")).toBe("zh");
    expect(Array.from(new Uint8Array(await (fd.get("file") as Blob).arrayBuffer()))).toEqual(Array.from(audio));
  });

  it("adds a missing field and returns the same bytes when nothing changes", async () => {
    const { body, contentType } = await formBody({ file: new Blob([audio]) });
    const out = setMultipartField(body, contentType, "model", "whisper-1");
    const fd = await reparse(out, contentType);
    expect(fd.get("model")).toBe("whisper-1");
    expect(setMultipartField(out, contentType, "model", "whisper-1")).toBe(out);
  });

  it("rejects a body that does not match the boundary", () => {
    expect(() => setMultipartField(new TextEncoder().encode("hello"), "multipart/form-data; boundary=zzz", "model", "x")).toThrow(
      /multipart/,
    );
  });
});
