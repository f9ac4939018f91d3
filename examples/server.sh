#!/usr/bin/env bash
# Drives a running `voxsim serve` with curl: a campaign dials a voicemail, then a human.
set -euo pipefail
API=${VOXSIM_URL:-http://127.0.0.1:4010/api}
KEY="Authorization: Bearer sim_test_key"
JSON="Content-Type: application/json"

curl -sf -X POST "$API/__sim/phone-numbers" -H "$JSON" \
  -d '{"account_id": 1, "type": "sip", "phone_number": "+14155550100"}' > /dev/null
curl -sf -X POST "$API/user/assistant" -H "$KEY" -H "$JSON" -d '{
  "name": "Sales", "voice_id": 1, "language_id": 1, "type": "outbound", "mode": "pipeline",
  "timezone": "Europe/Berlin", "initial_message": "Hello!", "system_prompt": "You sell.",
  "llm_model_id": 1, "phone_number_id": 1}' > /dev/null
curl -sf -X POST "$API/user/campaign" -H "$KEY" -H "$JSON" \
  -d '{"name": "Spring", "assistant_id": 1, "retry_on_voicemail": true}' > /dev/null
# A number ending in 0003 reaches voicemail on every attempt; this one is scripted instead:
curl -sf -X PUT "$API/__sim/outcomes" -H "$JSON" \
  -d '{"rules": [{"match": {"phone_number": "+15551230042"}, "outcomes": ["voicemail", "human"]}]}' > /dev/null
curl -sf -X POST "$API/user/lead" -H "$KEY" -H "$JSON" \
  -d '{"campaign_id": 1, "phone_number": "(555) 123-0042"}' > /dev/null
curl -sf -X POST "$API/user/campaigns/update-status" -H "$KEY" -H "$JSON" \
  -d '{"campaign_id": 1, "action": "start"}'
echo
curl -sf -X POST "$API/__sim/clock/advance" -H "$JSON" -d '{"by": "2h"}'
echo
curl -sf "$API/user/leads" -H "$KEY"
echo
