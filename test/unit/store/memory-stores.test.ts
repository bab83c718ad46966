import { createMemoryStores } from "../../../src/store/memory.js";
import { describeStoreContract } from "../../contract/stores.contract.js";

describeStoreContract("memory stores", async ({ retentionMs, approvalCardTtlMs }) => {
  let nowMs = Date.now();
  return {
    stores: createMemoryStores({ retentionMs, approvalCardTtlMs, now: () => nowMs }),
    cleanup: async () => {},
    elapse: async (ms) => {
      nowMs += ms;
    },
  };
});
