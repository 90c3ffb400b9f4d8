// What a console page shows while its server render is still loading data.
import { Center, Loader } from "@mantine/core";

export default function Loading() {
  return (
    <Center py="xl">
      <Loader />
    </Center>
  );
}
