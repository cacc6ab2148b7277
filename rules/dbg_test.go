package rules
import ("testing";"fmt";"os";"path/filepath";"time";"strconv";"strings")
func TestDbg(t *testing.T){
 dir := os.Getenv("FZ")
 fs,_ := filepath.Glob(dir+"/*")
 for _,f := range fs {
  b,_ := os.ReadFile(f)
  lines := strings.SplitN(string(b),"\n",2)
  s := strings.TrimSpace(lines[1]); s = strings.TrimPrefix(s,"[]byte("); s = strings.TrimSuffix(s,")")
  v,err := strconv.Unquote(s); if err!=nil {fmt.Println(err); continue}
  st:=time.Now(); r:=DeriveT3(helloEntries, Observation{Stdout:[]byte(v)})
  fmt.Println(filepath.Base(f), len(v), time.Since(st), r.Status, r.Verdict)
 }
}
