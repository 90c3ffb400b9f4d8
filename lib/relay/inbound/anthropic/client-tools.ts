// Anthropic's versioned tools (`{"type": "bash_20250124", "name": "bash"}`) are of two kinds.
// Client tools (bash, the text editor, computer use, memory) are run by the caller, like any
// custom tool: Anthropic only knows their input schema, which Claude was trained on, and does not
// send it in the request. Converted, each becomes a plain function tool with that schema written
// out (from Anthropic's tool reference), so any model can call it and the caller runs the call as
// it would Claude's. Server tools (web search, web fetch, code execution, tool search, MCP
// toolsets) run inside Anthropic's API: no other vendor can run them, so they are dropped and
// named (decode-request.ts).
import type { Obj } from "@/lib/obj";

/** A tool's type without its version date: `web_search_20250305` → `web_search`. */
export function toolFamily(type: string): string {
  return type.replace(/_\d{8}$/, "");
}

const str = (description: string) => ({ type: "string", description });
const int = (description: string) => ({ type: "integer", description });

const bash: Obj = {
  description:
    "Run a command in a persistent bash shell. State (working directory, variables) is kept between calls; " +
    "set restart to true to start a fresh shell.",
  parameters: {
    type: "object",
    properties: {
      command: str("The bash command to run. Required unless the tool is being restarted."),
      restart: { type: "boolean", description: "Set to true to restart the shell." },
    },
  },
};

/** The text editor's input; `undo_edit` exists only in its first two versions. */
function textEditor(commands: string[]): Obj {
  return {
    description:
      "View, create and edit text files. view shows a file with line numbers (or a directory listing); create writes " +
      "file_text to a new file; str_replace replaces old_str, which must occur exactly once, with new_str; insert adds " +
      "new_str after line insert_line.",
    parameters: {
      type: "object",
      properties: {
        command: { type: "string", enum: commands, description: "The operation to perform." },
        path: str("Absolute path to the file or directory."),
        file_text: str("For create: the content of the new file."),
        old_str: str("For str_replace: the exact text to replace."),
        new_str: str("For str_replace and insert: the new text."),
        insert_line: int("For insert: the line after which new_str is inserted (0 for the start)."),
        view_range: {
          type: "array",
          items: { type: "integer" },
          description: "For view: [start, end] line numbers, 1-based; end -1 reads to the end of the file.",
        },
      },
      required: ["command", "path"],
    },
  };
}

const memory: Obj = {
  description:
    "Read and write files in the /memories directory, which persists across conversations: view, create, str_replace, " +
    "insert, delete and rename.",
  parameters: {
    type: "object",
    properties: {
      command: { type: "string", enum: ["view", "create", "str_replace", "insert", "delete", "rename"] },
      path: str("A path under /memories."),
      file_text: str("For create: the content of the file."),
      old_str: str("For str_replace: the exact text to replace."),
      new_str: str("For str_replace: the new text."),
      insert_line: int("For insert: the line after which insert_text goes."),
      insert_text: str("For insert: the text to insert."),
      view_range: { type: "array", items: { type: "integer" }, description: "For view: [start, end] line numbers." },
      old_path: str("For rename: the current path."),
      new_path: str("For rename: the new path."),
    },
    required: ["command"],
  },
};

const COMPUTER_ACTIONS = [
  "key",
  "type",
  "mouse_move",
  "left_click",
  "left_click_drag",
  "right_click",
  "middle_click",
  "double_click",
  "triple_click",
  "left_mouse_down",
  "left_mouse_up",
  "scroll",
  "hold_key",
  "wait",
  "screenshot",
  "cursor_position",
];

/** Computer use: the screen size is the tool's own setting, so it goes into the description. */
function computer(tool: Obj): Obj {
  const size =
    typeof tool.display_width_px === "number" && typeof tool.display_height_px === "number"
      ? ` The screen is ${tool.display_width_px}x${tool.display_height_px} pixels.`
      : "";
  return {
    description: `Control the computer's mouse and keyboard and take screenshots, which come back as images.${size}`,
    parameters: {
      type: "object",
      properties: {
        action: { type: "string", enum: COMPUTER_ACTIONS },
        coordinate: { type: "array", items: { type: "integer" }, description: "[x, y] in pixels, for moves, clicks and scrolls." },
        start_coordinate: { type: "array", items: { type: "integer" }, description: "[x, y] where left_click_drag starts." },
        text: str("For type and key: the text or key combination (xdotool syntax, e.g. ctrl+s)."),
        scroll_direction: { type: "string", enum: ["up", "down", "left", "right"] },
        scroll_amount: int("For scroll: how many wheel clicks."),
        duration: { type: "number", description: "For hold_key and wait: seconds." },
      },
      required: ["action"],
    },
  };
}

/**
 * The function (description and parameters) for a client tool of Anthropic's, or null for a
 * tool run by Anthropic's API itself (a server tool) or one this release does not know.
 */
export function clientToolFunction(tool: Obj, type: string): Obj | null {
  switch (toolFamily(type)) {
    case "bash":
      return bash;
    case "text_editor":
      return type === "text_editor_20241022" || type === "text_editor_20250124"
        ? textEditor(["view", "create", "str_replace", "insert", "undo_edit"])
        : textEditor(["view", "create", "str_replace", "insert"]);
    case "memory":
      return memory;
    case "computer":
      return computer(tool);
    default:
      return null;
  }
}
