-- Shared by every fleet script (see FleetScripts). Every moment is Redis's own (TIME, in milliseconds):
-- a script takes durations from its caller and answers with durations, so JVMs whose clocks disagree
-- still share one schedule. Every script's last argument names the clock: empty for Redis's own; a
-- moment for tests in virtual time. Moments are stored as whole numbers of milliseconds written with
-- %d: Lua's default number format would round a 13-digit epoch to 14 significant digits at best.
-- Every hash written carries v = 1, the format's version, for a later version to know what it reads.
local now
if ARGV[#ARGV] ~= '' then now = tonumber(ARGV[#ARGV]) else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function n(v) return tonumber(v) or 0 end
local function d(x) return string.format('%d', x) end
-- Successes counted in all, and in buckets of server time, for the fleet's ceiling; old buckets
-- pruned only when the hash has grown past two windows, so the usual flush is three commands.
local function flush(hash, key, count, bucketMs, windowMs)
  if count <= 0 then return end
  redis.call('HINCRBY', hash, 'admitted', count)
  local bucket = math.floor(now / bucketMs)
  redis.call('HINCRBY', key, d(bucket), count)
  redis.call('PEXPIRE', key, windowMs * 2 + bucketMs)
  local span = math.ceil(windowMs / bucketMs)
  if redis.call('HLEN', key) > 2 * span + 2 then
    for _, f in ipairs(redis.call('HKEYS', key)) do
      if tonumber(f) < bucket - span - 1 then redis.call('HDEL', key, f) end
    end
  end
end
