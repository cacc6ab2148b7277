package static
import ("testing";"encoding/json";"path/filepath";"os")
func TestDump(t *testing.T){
 for _, n := range []string{os.Getenv("FX")} {
  in := fixtureInput(t, filepath.Join(vectorsDir, n), "0.2.2-rc.1", nil)
  b,_ := json.MarshalIndent(Check(in),"","  "); t.Log(string(b))
 }
}
