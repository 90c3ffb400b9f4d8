import { describe, expect, it } from "vitest";
import { answerContentType } from "./answer-type";

const json = '{"id":"x"}';

describe("answerContentType", () => {
  it("answers JSON endpoints as application/json, also when a vendor labels JSON loosely", () => {
    for (const upstream of ["application/json", "application/json; charset=utf-8", "text/plain", "", "application/vnd.x+json"]) {
      expect(answerContentType("chat", upstream, json, undefined)).toBe("application/json");
    }
    expect(answerContentType("embeddings", "application/json", new TextEncoder().encode(` \n[1]`), undefined)).toBe("application/json");
  });

  it("refuses markup and bodies a JSON endpoint cannot produce", () => {
    expect(answerContentType("chat", "text/html; charset=utf-8", "<html><script>alert(1)</script></html>", undefined)).toBeNull();
    expect(answerContentType("chat", "text/html", json, undefined)).toBeNull();
    expect(answerContentType("images", "application/xhtml+xml", json, undefined)).toBeNull();
    expect(answerContentType("chat", "image/svg+xml", json, undefined)).toBeNull();
    expect(answerContentType("chat", "text/plain", "<h1>Bad gateway</h1>", undefined)).toBeNull();
    expect(answerContentType("chat", "application/json", "", undefined)).toBeNull();
    expect(answerContentType("rerank", "application/octet-stream", json, undefined)).toBeNull();
  });

  it("answers speech with its audio type only", () => {
    expect(answerContentType("speech", "audio/mpeg", "ID3", undefined)).toBe("audio/mpeg");
    expect(answerContentType("speech", "Audio/Wav; rate=24000", "RIFF", undefined)).toBe("audio/wav");
    expect(answerContentType("speech", "application/octet-stream", "x", undefined)).toBe("application/octet-stream");
    expect(answerContentType("speech", "text/html", "<html>", undefined)).toBeNull();
    expect(answerContentType("speech", "application/json", json, undefined)).toBeNull();
  });

  it("answers transcripts in the requested format's type", () => {
    expect(answerContentType("transcriptions", "application/json", '{"text":"hi"}', undefined)).toBe("application/json");
    expect(answerContentType("transcriptions", "text/plain; charset=utf-8", "hi", "text")).toBe("text/plain; charset=utf-8");
    expect(answerContentType("translations", "text/vtt", "WEBVTT", "vtt")).toBe("text/vtt; charset=utf-8");
    expect(answerContentType("transcriptions", "text/plain", "1\n00:00", "srt")).toBe("text/plain; charset=utf-8");
    expect(answerContentType("transcriptions", "application/x-subrip; charset=utf-8", "1\n00:00", "srt")).toBe(
      "application/x-subrip; charset=utf-8",
    );
    expect(answerContentType("transcriptions", "text/html", "<p>hi</p>", "text")).toBeNull();
    expect(answerContentType("transcriptions", "text/plain", "hi", "json")).toBeNull();
  });
});
