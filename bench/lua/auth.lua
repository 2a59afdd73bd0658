-- wrk: every request carries the bearer token in $IMAXE_TOKEN; paths rotate through $WRK_PATHS
-- (a file of request paths, one a line; "PATH ETAG" sends If-None-Match: ETAG with it) when it
-- is set, else the URL's path is used.
wrk.headers["Authorization"] = "Bearer " .. os.getenv("IMAXE_TOKEN")
local paths, etags = {}, {}
local file = os.getenv("WRK_PATHS")
if file and file ~= "" then
  for line in io.lines(file) do
    local p, e = line:match("^(%S+)%s+(%S+)$")
    paths[#paths + 1] = p or line
    etags[#paths] = e
  end
end
local i = 0
request = function()
  if #paths == 0 then return wrk.format(nil) end
  i = i + 1
  local k = (i % #paths) + 1
  if etags[k] then
    -- a headers table replaces wrk.headers: the token goes in again
    return wrk.format(nil, paths[k], { ["Authorization"] = wrk.headers["Authorization"],
                                       ["If-None-Match"] = etags[k] })
  end
  return wrk.format(nil, paths[k])
end
