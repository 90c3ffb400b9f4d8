// Default `CacheRatio` table: the price of a cached prompt token relative to a normal one
// (new-api's later table). Claude's cache-creation surcharge (×1.25) is a billing constant, not
// an option.

export const DEFAULT_CACHE_RATIO: Record<string, number> = {
  "gpt-4": 0.5,
  o1: 0.5,
  "o1-2024-12-17": 0.5,
  "o1-preview": 0.5,
  "o1-preview-2024-09-12": 0.5,
  "o1-mini": 0.5,
  "o1-mini-2024-09-12": 0.5,
  "o3-mini": 0.5,
  "o3-mini-2025-01-31": 0.5,
  "gpt-4o": 0.5,
  "gpt-4o-2024-08-06": 0.5,
  "gpt-4o-2024-11-20": 0.5,
  "gpt-4o-mini": 0.5,
  "gpt-4o-mini-2024-07-18": 0.5,
  "gpt-4o-realtime-preview": 0.5,
  "gpt-4.5-preview": 0.5,
  "gpt-4.5-preview-2025-02-27": 0.5,
  "deepseek-chat": 0.25,
  "deepseek-coder": 0.25,
  "deepseek-reasoner": 0.25,
  "claude-3-haiku-20240307": 0.1,
  "claude-3-5-haiku-20241022": 0.1,
  "claude-3-sonnet-20240229": 0.1,
  "claude-3-5-sonnet-20240620": 0.1,
  "claude-3-5-sonnet-20241022": 0.1,
  "claude-3-7-sonnet-20250219": 0.1,
  "claude-3-opus-20240229": 0.1,
};
