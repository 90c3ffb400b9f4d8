// Default `CompletionRatio` table: the price of a completion token relative to a prompt token.
// new-api hard-coded these rules and let them override the option, so admins could not change
// them (its most requested billing fix). Qiao writes the rules out as the option's default table
// instead: every model of the default ModelRatio table gets an explicit, editable entry, and
// `completionRatioRule` stays available as the fallback for models missing from the table.
import { DEFAULT_MODEL_RATIO } from "@/lib/options/defaults/model-ratio";

/** new-api's built-in completion ratio for a model name (1 when no rule matches). */
export function completionRatioRule(name: string): number {
  // new-api's configured defaults for the gizmo and "-all" pseudo-models.
  if (name === "gpt-4-gizmo-*" || name === "gpt-4-all") return 2;
  if (name === "gpt-4o-gizmo-*") return 3;
  if (name.startsWith("gpt-4") && !name.endsWith("-all")) {
    if (name.startsWith("gpt-4o")) return name === "gpt-4o-2024-05-13" ? 3 : 4;
    if (name.startsWith("gpt-4.5")) return 2;
    if (name.startsWith("gpt-4-turbo") || name.endsWith("preview")) return 3;
    return 2;
  }
  if (/^o[13](-|$)/.test(name)) return 4;
  if (name === "chatgpt-4o-latest") return 3;
  if (name.includes("claude-instant-1") || name.includes("claude-2")) return 3;
  if (name.includes("claude-3")) return 5;
  if (name.startsWith("gpt-3.5")) {
    if (name === "gpt-3.5-turbo" || name.endsWith("0125")) return 3;
    if (name.endsWith("1106")) return 2;
    return 4 / 3;
  }
  if (name.startsWith("mistral-")) return 3;
  if (name.startsWith("gemini-")) return 4;
  if (name.startsWith("command")) {
    const fixed: Record<string, number> = { "command-r": 3, "command-r-plus": 5, "command-r-08-2024": 4, "command-r-plus-08-2024": 4 };
    return Object.hasOwn(fixed, name) ? fixed[name]! : 2;
  }
  if (name === "deepseek-chat" || name === "deepseek-reasoner") return 4;
  if (name.startsWith("deepseek")) return 2;
  if (/^ERNIE-(Speed|Lite|Character|Functions)-/.test(name)) return 2;
  if (name.startsWith("grok-3-mini")) return 5 / 3;
  if (name === "grok-beta" || name === "grok-vision-beta") return 3;
  if (name.startsWith("grok-")) return 5;
  return 1;
}

export const DEFAULT_COMPLETION_RATIO: Record<string, number> = Object.fromEntries(
  Object.keys(DEFAULT_MODEL_RATIO).map((model) => [model, completionRatioRule(model)]),
);
