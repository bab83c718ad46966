--[[
  Counts where a page of a batch's rows stands, from each row's payout, without sending the
  payouts back: the worker counts every row of a batch every few seconds while its rows
  settle. A row with a problem is skipped; any other stands as its payout's state says
  (`standings`, made from standingOfState in model/batch.ts; no payout, or a state not
  listed: skipped). A paid row adds its payout's amount and fee.

  Input:
    KEYS[1]   the batch's rows (a list of JSON rows, in spreadsheet order)

    ARGV[1]   options (JSON): from (0-based position of the page's first row), count (rows
              in a page), payoutPrefix (a row's payout record is payoutPrefix .. row.row),
              standings (state JSON, as stored → paid | failed | pending | unknown | skipped)

  Output:
    {rows read, paid, failed, pending, unknown, skipped, paid XAF, fees XAF}
]]

local o = cjson.decode(ARGV[1])
local from = tonumber(o.from)
local rows = redis.call('LRANGE', KEYS[1], from, from + tonumber(o.count) - 1)
local counts = { paid = 0, failed = 0, pending = 0, unknown = 0, skipped = 0 }
local paidXaf, feesXaf = 0, 0
for _, raw in ipairs(rows) do
  local row = cjson.decode(raw)
  local standing = 'skipped'
  if row.problem == nil or row.problem == cjson.null then
    local fields = redis.call('HMGET', o.payoutPrefix .. row.row, 'state', 'amount', 'fee')
    standing = (fields[1] and o.standings[fields[1]]) or 'skipped'
    if standing == 'paid' then
      paidXaf = paidXaf + (tonumber(fields[2]) or 0)
      feesXaf = feesXaf + (tonumber(fields[3]) or 0)
    end
  end
  counts[standing] = counts[standing] + 1
end
return { #rows, counts.paid, counts.failed, counts.pending, counts.unknown, counts.skipped,
  paidXaf, feesXaf }
