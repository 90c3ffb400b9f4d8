import { redirect } from "next/navigation";
import { ChatFrame } from "@/components/chat/chat-frame";
import { pageUser } from "@/lib/auth/page-user";
import { getOptions } from "@/lib/options";
import { chatTokenKey } from "@/lib/tokens/manage";
import { chatTarget } from "@/lib/ui/chat-frame";

// /chat2link (spec §2): straight to the ChatLink2 chat page with the user's key filled in, or the
// reason it cannot go.
export default async function Chat2LinkPage() {
  const user = await pageUser();
  const [o, key] = await Promise.all([getOptions(), chatTokenKey({ id: user.id, group: user.group })]);
  const target = chatTarget("link2", { chats: o.Chats, chatLink: o.ChatLink, chatLink2: o.ChatLink2, serverAddress: o.ServerAddress }, key);
  if ("url" in target) redirect(target.url);
  return <ChatFrame target={target} />;
}
