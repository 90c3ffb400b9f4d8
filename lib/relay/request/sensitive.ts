// The sensitive-word filter on prompts (options CheckSensitiveEnabled, CheckSensitiveOnPromptEnabled,
// SensitiveWords): a request whose text contains a listed word is refused with a 400 before any
// reservation or upstream call.
//
// As new-api: words are one a line, trimmed, empty lines ignored; matching ignores case (words and
// text are lower-cased) and finds a word anywhere, also inside a longer word. The words become one
// Aho–Corasick automaton, built once per distinct list and kept, so a check reads the text once
// whatever the list's length.
import { RelayError } from "../errors";

/** The words of a SensitiveWords value: one a line, trimmed, lower-cased, empty ones dropped. */
export function sensitiveWordList(raw: string): string[] {
  const words: string[] = [];
  for (const line of raw.split("\n")) {
    const word = line.trim().toLowerCase();
    if (word !== "") words.push(word);
  }
  return words;
}

const NO_STATE = -1;
/** Entries of the complete-transition rows (4 bytes each). */
const DENSE_ENTRIES = 1 << 20;

/**
 * An Aho–Corasick automaton over UTF-16 code units. Characters that occur in no word map to class
 * 0 and send the scan straight back to the root; the shallowest states (the root first) have a
 * complete row of transitions, within DENSE_ENTRIES; a deeper state's children sit sorted in one
 * shared array (most have one) and it falls back along its failure link.
 */
export class WordMatcher {
  /** Code unit → character class (0: in no word). */
  private readonly classOf = new Uint16Array(65536);
  /**
   * Complete transitions (failures resolved) of the shallowest states, where a scan spends most
   * of its steps: state s's row starts at denseRow[s] (-1: no row, use its sorted children).
   */
  private readonly dense: Int32Array;
  private readonly denseRow: Int32Array;
  /** Children of state s: edgeClass/edgeTarget[edgeStart[s] .. edgeStart[s + 1]), sorted by class. */
  private readonly edgeStart: Int32Array;
  private readonly edgeClass: Uint16Array;
  private readonly edgeTarget: Int32Array;
  private readonly fail: Int32Array;
  /** The word found on reaching a state (its own, or the longest suffix's), or -1. */
  private readonly hit: Int32Array;

  constructor(private readonly words: readonly string[]) {
    // The trie, first with a Map per state (built once; the scan uses the flat arrays below).
    let classes = 0;
    for (const word of words)
      for (let i = 0; i < word.length; i++) {
        const c = word.charCodeAt(i);
        if (this.classOf[c] === 0) this.classOf[c] = ++classes;
      }
    const children: Map<number, number>[] = [new Map()];
    const terminal: number[] = [NO_STATE];
    words.forEach((word, w) => {
      let s = 0;
      for (let i = 0; i < word.length; i++) {
        const k = this.classOf[word.charCodeAt(i)]!;
        let next = children[s]!.get(k);
        if (next === undefined) {
          next = children.length;
          children.push(new Map());
          terminal.push(NO_STATE);
          children[s]!.set(k, next);
        }
        s = next;
      }
      if (terminal[s] === NO_STATE) terminal[s] = w;
    });
    const states = children.length;
    this.edgeStart = new Int32Array(states + 1);
    this.edgeClass = new Uint16Array(states - 1);
    this.edgeTarget = new Int32Array(states - 1);
    const child = (s: number, k: number) => children[s]!.get(k) ?? NO_STATE;
    let e = 0;
    for (let s = 0; s < states; s++) {
      this.edgeStart[s] = e;
      for (const [k, t] of [...children[s]!].sort((a, b) => a[0] - b[0])) {
        this.edgeClass[e] = k;
        this.edgeTarget[e++] = t;
      }
    }
    this.edgeStart[states] = e;
    // Failure links and hits, breadth first.
    this.fail = new Int32Array(states);
    this.hit = new Int32Array(states).fill(NO_STATE);
    const queue = new Int32Array(states);
    let head = 0;
    let tail = 0;
    for (const t of children[0]!.values()) {
      queue[tail++] = t;
      this.hit[t] = terminal[t]!;
    }
    while (head < tail) {
      const s = queue[head++]!;
      for (const [k, t] of children[s]!) {
        let f = this.fail[s]!;
        let next = child(f, k);
        while (next === NO_STATE && f !== 0) {
          f = this.fail[f]!;
          next = child(f, k);
        }
        this.fail[t] = next === NO_STATE ? 0 : next;
        this.hit[t] = terminal[t] !== NO_STATE ? terminal[t]! : this.hit[this.fail[t]!]!;
        queue[tail++] = t;
      }
    }
    // Complete rows for the root and the states after it in breadth-first order: a state's
    // failure link is shallower, so its row is already there when the state's is filled.
    const width = classes + 1;
    const rows = Math.max(1, Math.min(states, Math.floor(DENSE_ENTRIES / width)));
    this.dense = new Int32Array(rows * width);
    this.denseRow = new Int32Array(states).fill(NO_STATE);
    for (let r = 0; r < rows; r++) {
      const s = r === 0 ? 0 : queue[r - 1]!;
      const at = r * width;
      this.denseRow[s] = at;
      const failRow = s === 0 ? NO_STATE : this.denseRow[this.fail[s]!]!;
      for (let k = 1; k < width; k++) {
        const t = child(s, k);
        this.dense[at + k] = t !== NO_STATE ? t : s === 0 ? 0 : this.dense[failRow + k]!;
      }
    }
  }

  /** The first listed word `text` contains (ignoring case), or null. */
  find(text: string): string | null {
    if (this.words.length === 0 || text.length === 0) return null;
    const lower = text.toLowerCase();
    // The step, inlined with its arrays in locals: this loop runs once per character.
    const { classOf, dense, denseRow, edgeStart, edgeClass, edgeTarget, fail, hit } = this;
    let s = 0;
    for (let i = 0; i < lower.length; i++) {
      const k = classOf[lower.charCodeAt(i)]!;
      if (k === 0) {
        s = 0;
        continue;
      }
      for (;;) {
        const row = denseRow[s]!;
        if (row !== NO_STATE) {
          s = dense[row + k]!;
          break;
        }
        let lo = edgeStart[s]!;
        let hi = edgeStart[s + 1]!;
        let next = NO_STATE;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          const c = edgeClass[mid]!;
          if (c === k) {
            next = edgeTarget[mid]!;
            break;
          }
          if (c < k) lo = mid + 1;
          else hi = mid;
        }
        if (next !== NO_STATE) {
          s = next;
          break;
        }
        s = fail[s]!;
      }
      const w = hit[s]!;
      if (w !== NO_STATE) return this.words[w]!;
    }
    return null;
  }
}

let built: { raw: string; matcher: WordMatcher } | null = null;

/**
 * The automaton of a SensitiveWords value, rebuilt only when the value changes (the process, or
 * the body thread, keeps the last one).
 */
export function matcherFor(raw: string): WordMatcher {
  if (built?.raw !== raw) built = { raw, matcher: new WordMatcher(sensitiveWordList(raw)) };
  else built.raw = raw; // the same text in a newer string: later checks compare by identity
  return built.matcher;
}

/**
 * A text-bearing member: a string, an array of them (nested arrays too), or content parts
 * (`{type:"text", text}`). The arrays are walked with a stack of their own, not by recursion: no
 * nesting a client can send (`[[[[…]]]]`, 20 000 deep) overflows the call stack.
 */
function findIn(value: unknown, matcher: WordMatcher): string | null {
  if (typeof value === "string") return matcher.find(value);
  if (!Array.isArray(value)) return findInPart(value, matcher);
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    let word: string | null = null;
    if (typeof item === "string") word = matcher.find(item);
    else if (Array.isArray(item)) for (let i = item.length - 1; i >= 0; i--) pending.push(item[i]);
    else word = findInPart(item, matcher);
    if (word !== null) return word;
  }
  return null;
}

function findInPart(value: unknown, matcher: WordMatcher): string | null {
  if (value && typeof value === "object") {
    const part = value as { type?: unknown; text?: unknown };
    if (part.type === "text" && typeof part.text === "string") return matcher.find(part.text);
  }
  return null;
}

/**
 * The first listed word in a request's text: the messages' content (strings and text parts),
 * `prompt` and `input` (strings, lists of strings or text parts). Images, audio and token arrays
 * are not text and are not looked at.
 */
export function findSensitiveWord(json: Record<string, unknown>, matcher: WordMatcher): string | null {
  const messages = json.messages;
  if (Array.isArray(messages)) {
    for (const message of messages) {
      if (!message || typeof message !== "object") continue;
      const word = findIn((message as { content?: unknown }).content, matcher);
      if (word !== null) return word;
    }
  }
  return findIn(json.prompt, matcher) ?? findIn(json.input, matcher);
}

/** The keys under which the caller protocols (and OpenAI's) put prompt text. */
const TEXT_KEYS: ReadonlySet<string> = new Set([
  "text",
  "content",
  "system",
  "instructions",
  "input",
  "prompt",
  "systemInstruction",
  "contents",
  "parts",
]);
/** Declarations and settings, not text the model is prompted with: never looked into. */
const NOT_PROMPT: ReadonlySet<string> = new Set([
  "tools",
  "tool_choice",
  "metadata",
  "args",
  "arguments",
  "response_format",
  "generationConfig",
  "generation_config",
]);

/**
 * The first listed word in the text of a call in another protocol (Anthropic Messages, Gemini,
 * Responses), read from the caller's own body without decoding it: every string under a key those
 * protocols put prompt text under (TEXT_KEYS), at any depth (system text, messages, content
 * blocks, tool results), but not tool declarations, a tool call's own arguments (an `input`
 * object, `args`) or settings, which the check on the decoded body never read either. The depth
 * is bounded where the body is read (json-depth.ts), so the walk may recurse.
 */
export function findSensitiveWordInCaller(body: Record<string, unknown>, matcher: WordMatcher): string | null {
  return findInMembers(body, matcher);
}

function findInMembers(value: Record<string, unknown>, matcher: WordMatcher): string | null {
  for (const key in value) {
    if (NOT_PROMPT.has(key)) continue;
    const member = value[key];
    let word: string | null = null;
    if (typeof member === "string") {
      if (TEXT_KEYS.has(key)) word = matcher.find(member);
    } else if (Array.isArray(member)) word = findInItems(member, matcher);
    // A tool call's `input` object holds its arguments; Responses' `input` is a string or a list.
    else if (member !== null && typeof member === "object" && key !== "input")
      word = findInMembers(member as Record<string, unknown>, matcher);
    if (word !== null) return word;
  }
  return null;
}

function findInItems(items: unknown[], matcher: WordMatcher): string | null {
  for (const item of items) {
    let word: string | null = null;
    if (typeof item === "string") word = matcher.find(item);
    else if (Array.isArray(item)) word = findInItems(item, matcher);
    else if (item !== null && typeof item === "object") word = findInMembers(item as Record<string, unknown>, matcher);
    if (word !== null) return word;
  }
  return null;
}

/** Whether prompts are checked: the two switches of the operation tab. */
export function promptCheckEnabled(o: { CheckSensitiveEnabled: unknown; CheckSensitiveOnPromptEnabled: unknown }): boolean {
  return o.CheckSensitiveEnabled === true && o.CheckSensitiveOnPromptEnabled === true;
}

/** The 400 for a prompt with a listed word (new-api's code `sensitive_words_detected`). */
export function sensitiveWordError(word: string): RelayError {
  return new RelayError(400, `请求内容包含敏感词：${word}`, { code: "sensitive_words_detected" });
}
