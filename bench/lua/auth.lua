-- wrk: every request carries the bearer token in $IMAXE_TOKEN; paths rotate through $WRK_PATHS
-- (a file of request paths, one a line) when it is set, else the URL's path is used.
wrk.headers["Authorization"] = "Bearer " .. os.getenv("IMAXE_TOKEN")
local paths = {}
local file = os.getenv("WRK_PATHS")
if file and file ~= "" then
  for line in io.lines(file) do paths[#paths + 1] = line end
end
local i = 0
request = function()
  if #paths == 0 then return wrk.format(nil) end
  i = i + 1
  return wrk.format(nil, paths[(i % #paths) + 1])
end
