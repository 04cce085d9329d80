-- A success, to a request sent `sent` ago: if it went out after the fleet's open streak began, the
-- streak is over and joins the finished ones. KEYS: hash, streaks. ARGV: ttl, capacity, sent (ago).
-- Returns {0} when no streak ended, else {1, start (ago), header, last refused (after start),
-- recovered by (after start), paced}.
local sent = now - tonumber(ARGV[3])
local h = redis.call('HMGET', KEYS[1], 'streak-start', 'streak-header', 'streak-sent', 'streak-paced')
if not h[1] or sent < n(h[1]) then return {0} end
local start = n(h[1])
local last, by = math.max(0, n(h[3]) - start), sent - start
redis.call('LPUSH', KEYS[2], d(start) .. ' h=' .. h[2] .. ' last=' .. d(last) .. ' by=' .. d(by) .. ' paced=' .. h[4])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[1]))
redis.call('HDEL', KEYS[1], 'streak-start', 'streak-header', 'streak-sent', 'streak-refusals', 'streak-paced')
return {1, now - start, h[2], last, by, h[4]}
