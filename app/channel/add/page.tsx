import { ChannelEditor } from "@/components/channels/channel-editor";
import { pageUser } from "@/lib/auth/page-user";
import { isRoot } from "@/lib/auth/roles";
import { CHANNEL_TYPE_CODES } from "@/lib/channels/catalog";
import { supportsModelList } from "@/lib/relay/probe/fetch-models";
import { listChannelModels } from "@/lib/channels/query";
import { listGroups } from "@/lib/options/groups";
import { getOptions } from "@/lib/options";
import { priceTableOf } from "@/lib/billing/pricing";
import { notRelayedTypes } from "@/lib/relay/providers";

// The channel editor for a new channel (or one per key line in batch mode).
export default async function ChannelAddPage() {
  const user = await pageUser("admin");
  const [models, groups, options] = await Promise.all([listChannelModels(), listGroups(), getOptions()]);
  return (
    <ChannelEditor
      channel={null}
      models={models.map((m) => m.id)}
      groups={groups}
      modelListTypes={CHANNEL_TYPE_CODES.filter(supportsModelList)}
      notRelayed={notRelayedTypes()}
      root={isRoot(user)}
      priceTable={priceTableOf(options)}
    />
  );
}
