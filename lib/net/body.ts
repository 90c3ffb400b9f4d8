// Request bodies read under a size cap, counted on the bytes as they arrive: Content-Length is
// absent on chunked uploads and only a claim elsewhere, so it can refuse early but never admit.

const EMPTY = new Uint8Array(0);

/**
 * The body of a web Request, or null when it is larger than `limit` bytes. An oversized body is
 * still read to its end and dropped (memory stays bounded): cancelling it would destroy the
 * socket under Node, and the client would get a reset instead of the answer.
 */
export async function readBodyWithin(request: Request, limit: number): Promise<Uint8Array | null> {
  const body = request.body;
  if (!body) return EMPTY;
  const reader = body.getReader();
  if (declaredLength(request.headers.get("content-length")) > limit) {
    void discard(reader);
    return null;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void discard(reader);
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Content-Length as a number; 0 when absent or not a number (the count while reading decides). */
export function declaredLength(header: string | string[] | null | undefined): number {
  const n = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(n) ? n : 0;
}

async function discard(reader: ReadableStreamDefaultReader<Uint8Array>) {
  try {
    while (!(await reader.read()).done) {
      // dropped
    }
  } catch {
    // the client went away: nothing left to drop
  }
}

/** "1 MB", "512 KB", "100 B": a limit as a person reads it. */
export function formatBytes(bytes: number): string {
  const MB = 1024 * 1024;
  if (bytes >= MB && bytes % MB === 0) return `${bytes / MB} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} B`;
}
