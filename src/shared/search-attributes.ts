// Search attributes the workflow upserts so conversations can be filtered in the Web UI and `temporal
// workflow list --query`. Registered by the embedded server and by workers on start.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const HermesStatus = defineSearchAttributeKey('HermesStatus', SearchAttributeType.KEYWORD);
export const HermesWaitingFor = defineSearchAttributeKey('HermesWaitingFor', SearchAttributeType.KEYWORD);
export const ALL_SEARCH_ATTRIBUTES = [HermesStatus, HermesWaitingFor];
