// Default `Chats`: chat-client links the token page offers. `{key}` becomes the user's sk- key
// and `{address}` the server address, so these links hand the key to the named client by design.

export const DEFAULT_CHATS: Array<Record<string, string>> = [
  { "ChatGPT Next Web 官方示例": 'https://app.nextchat.dev/#/?settings={"key":"{key}","url":"{address}"}' },
  {
    "Lobe Chat 官方示例": 'https://chat-preview.lobehub.com/?settings={"keyVaults":{"openai":{"apiKey":"{key}","baseURL":"{address}/v1"}}}',
  },
  { "AMA 问天": "ama://set-api-key?server={address}&key={key}" },
  { OpenCat: "opencat://team/join?domain={address}&token={key}" },
];
