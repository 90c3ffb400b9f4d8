// Default `ModelPrice` table: US$ per call. A model listed here is always billed per call, even
// for chat (new-api semantics). Values are new-api's (v0.3.2.x), plus xAI's image model and
// OpenAI's video models. For a video model (lib/tasks/video) the price is per second of video:
// a clip costs ModelPrice × its seconds × the group ratio.

export const DEFAULT_MODEL_PRICE: Record<string, number> = {
  suno_music: 0.1,
  suno_lyrics: 0.01,
  "dall-e-3": 0.04,
  "gpt-4-gizmo-*": 0.1,
  mj_imagine: 0.1,
  mj_variation: 0.1,
  mj_reroll: 0.1,
  mj_blend: 0.1,
  mj_modal: 0.1,
  mj_zoom: 0.1,
  mj_shorten: 0.1,
  mj_high_variation: 0.1,
  mj_low_variation: 0.1,
  mj_pan: 0.1,
  // Inpaint and custom zoom are paid through the mj_modal call that completes them.
  mj_inpaint: 0,
  mj_custom_zoom: 0,
  mj_describe: 0.05,
  mj_upscale: 0.05,
  swap_face: 0.05,
  mj_upload: 0.05,
  "grok-2-image": 0.07,
  // Per second of video (OpenAI's list prices).
  "sora-2": 0.1,
  "sora-2-pro": 0.3,
};
