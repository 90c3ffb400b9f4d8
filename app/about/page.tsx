import { DefaultAbout } from "@/components/content/default-about";
import { OptionPage } from "@/components/content/option-page";

export default function AboutPage() {
  return <OptionPage path="/api/about" title="关于" failure="加载关于内容失败..." empty={<DefaultAbout />} />;
}
