// Zhipu's two channel types: 26 (GLM-4, the v4 API, OpenAI-shaped; the one to prefer) and 16
// (ChatGLM, the legacy v3 API). Both authenticate with a JWT signed from the `id.secret` key.
export { zhipuV3 } from "./v3";
export { zhipuV4 } from "./v4";
