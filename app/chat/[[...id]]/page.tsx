import { notFound } from "next/navigation";
import { ChatFrame } from "@/components/chat/chat-frame";
import { pageUser } from "@/lib/auth/page-user";
import { getOptions } from "@/lib/options";
import { chatTokenKey } from "@/lib/tokens/manage";
import { chatTarget } from "@/lib/ui/chat-frame";

// The chat frame (spec §2 "Chat frame"): /chat/{i} shows the i-th Chats entry, /chat the ChatLink
// (else the first Chats entry), with the user's newest enabled key filled in (lib/ui/chat-frame.ts).
export default async function ChatPage({ params }: { params: Promise<{ id?: string[] }> }) {
  const user = await pageUser();
  const { id } = await params;
  if (id && (id.length !== 1 || !/^\d{1,4}$/.test(id[0]!))) notFound();
  const [o, key] = await Promise.all([getOptions(), chatTokenKey({ id: user.id, group: user.group })]);
  const target = chatTarget(
    id ? Number(id[0]) : "link",
    { chats: o.Chats, chatLink: o.ChatLink, chatLink2: o.ChatLink2, serverAddress: o.ServerAddress },
    key,
  );
  return <ChatFrame target={target} />;
}
